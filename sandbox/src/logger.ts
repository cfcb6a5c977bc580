import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout, one logger per process, namespaced with `child({ component })`. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'sandbox' }, timestamp: pino.stdTimeFunctions.isoTime });
}
