// First: tracing (when configured) must patch http, express and the MongoDB driver before they load.
import '@loan/runtime/dist/otel';
import { createLogger, createServiceRuntime, exitOnStartFailure, parseDuration, systemClock } from '@loan/runtime';
import { createMonoClient } from '@loan/provider';
import { loadApplicationsConfig } from './config';
import { createApplicationsService } from './service';

async function main() {
  const config = loadApplicationsConfig();
  const logger = createLogger(config.SERVICE_NAME, config.LOG_LEVEL);
  const runtime = await createServiceRuntime(config, { logger });
  runtime.lifecycle.installSignalHandlers();
  const provider = createMonoClient({
    baseUrl: config.PROVIDER_BASE_URL,
    logger,
    timeoutMs: parseDuration(config.PROVIDER_TIMEOUT),
  });
  const service = createApplicationsService({ runtime, config, provider, clock: systemClock });
  await service.start();
}

main().catch(exitOnStartFailure);
