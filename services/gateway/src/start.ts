// First: tracing (when configured) must patch http, express and the MongoDB driver before they load.
import '@loan/runtime/dist/otel';
import { createLogger, createServiceRuntime, exitOnStartFailure, systemClock } from '@loan/runtime';
import { loadGatewayConfig } from './config';
import { createGatewayService } from './service';

async function main() {
  const config = loadGatewayConfig();
  const logger = createLogger(config.SERVICE_NAME, config.LOG_LEVEL);
  const runtime = await createServiceRuntime(config, { logger });
  runtime.lifecycle.installSignalHandlers();
  await createGatewayService({ runtime, config, clock: systemClock }).start();
}

main().catch(exitOnStartFailure);
