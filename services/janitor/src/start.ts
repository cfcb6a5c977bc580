// First: tracing (when configured) must patch http, express and the MongoDB driver before they load.
import '@loan/runtime/dist/otel';
import { createLogger, createServiceRuntime, exitOnStartFailure, systemClock } from '@loan/runtime';
import { loadJanitorConfig } from './config';
import { createJanitorService } from './service';

async function main() {
  const config = loadJanitorConfig();
  const logger = createLogger(config.SERVICE_NAME, config.LOG_LEVEL);
  const runtime = await createServiceRuntime(config, { logger });
  runtime.lifecycle.installSignalHandlers();
  const service = createJanitorService({ runtime, config, clock: systemClock });
  await service.start();
}

main().catch(exitOnStartFailure);
