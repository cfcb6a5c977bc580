import type { Logger } from './logger';

/**
 * Graceful shutdown: on SIGTERM or SIGINT, the registered stoppers run in reverse order of
 * registration (stop taking work first, close connections last), bounded by a timeout.
 */
export function createLifecycle(options: { logger: Logger; timeoutMs: number; exit?: (code: number) => void }) {
  const stoppers: { name: string; stop: () => Promise<void> | void }[] = [];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping: Promise<void> | null = null;

  function onStop(name: string, stop: () => Promise<void> | void) {
    stoppers.push({ name, stop });
  }

  function stop(): Promise<void> {
    stopping ??= (async () => {
      for (const s of [...stoppers].reverse()) {
        try {
          await s.stop();
        } catch (error) {
          options.logger.error({ err: error, step: s.name }, 'shutdown step failed');
        }
      }
    })();
    return stopping;
  }

  function installSignalHandlers() {
    const onSignal = (signal: string) => {
      options.logger.info({ signal }, 'shutting down');
      const timer = setTimeout(() => {
        options.logger.error('shutdown timed out; exiting');
        exit(1);
      }, options.timeoutMs);
      timer.unref();
      void stop().then(() => exit(0));
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
    process.on('unhandledRejection', (reason) => {
      options.logger.fatal({ err: reason }, 'unhandled rejection; exiting');
      void stop().finally(() => exit(1));
    });
    process.on('uncaughtException', (error) => {
      options.logger.fatal({ err: error }, 'uncaught exception; exiting');
      void stop().finally(() => exit(1));
    });
  }

  return { onStop, stop, installSignalHandlers };
}
export type Lifecycle = ReturnType<typeof createLifecycle>;

/**
 * Ends a process whose start failed: a refused setting is one line naming it, anything else
 * its stack. Exits non-zero either way.
 */
export function exitOnStartFailure(error: unknown): never {
  if ((error as Error)?.name === 'ConfigError') console.error((error as Error).message);
  else console.error(error);
  process.exit(1);
}
