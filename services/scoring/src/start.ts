// First: tracing (when configured) must patch http, express and the MongoDB driver before they load.
import '@loan/runtime/dist/otel';
import { createLogger, createServiceRuntime, exitOnStartFailure, systemClock } from '@loan/runtime';
import { loadScoringConfig } from './config';
import { createHttpBureau } from './data-access/bureau/httpBureau';
import { createScoringService } from './service';

async function main() {
  const config = loadScoringConfig();
  const logger = createLogger(config.SERVICE_NAME, config.LOG_LEVEL);
  const runtime = await createServiceRuntime(config, { logger });
  runtime.lifecycle.installSignalHandlers();
  let onBreaker: (state: 'open' | 'half_open' | 'closed') => void = () => undefined;
  const bureau = createHttpBureau({
    baseUrl: config.BUREAU_BASE_URL,
    apiKey: config.BUREAU_API_KEY,
    timeoutMs: config.BUREAU_TIMEOUT,
    logger,
    onBreakerState: (state) => onBreaker(state),
  });
  const service = createScoringService({ runtime, config, bureau, clock: systemClock });
  onBreaker = service.breakerState;
  await service.start();
}

main().catch(exitOnStartFailure);
