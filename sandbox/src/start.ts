import { loadConfig } from './config';
import { createLogger } from './logger';
import { createSandbox } from './sandbox';

export { createSandbox } from './sandbox';
export type { Sandbox, SandboxDependencies } from './sandbox';

/** Runs the sandbox until SIGTERM or SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const sandbox = createSandbox(config, { logger });
  await sandbox.start();
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    sandbox.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${JSON.stringify({ level: 'fatal', msg: 'sandbox failed to start', err: String(error) })}\n`);
    process.exit(1);
  });
}
