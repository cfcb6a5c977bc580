import { randomUUID } from 'node:crypto';
import { baseConfigShape, loadConfig, type BaseConfig } from '@loan/runtime';

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false && value !== null) return value as T;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for ${options.what ?? 'condition'}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

/**
 * A deliberate pause, for the pace of a load a test shapes (publishes spread over a linger,
 * writes in bursts). Never to wait for something to happen or to have happened: `waitFor` that
 * instead, or, to show something did not happen, a later thing that did.
 */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `assertion` until it passes, or throws its last failure after `timeoutMs`. For what a
 * page shows once it has rendered: Playwright's count(), allTextContents() and isVisible() read
 * the page as it is at that moment and do not wait.
 */
export async function eventually(
  assertion: () => unknown | Promise<unknown>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/**
 * Topic, group and database names of one test run start with `tz<time>_`, the time in base 36:
 * the global setup deletes the topics of runs older than a few hours, so a developer's broker
 * does not collect thousands of partitions (testing/global-setup.js).
 */
export const testStamp = () => `tz${Date.now().toString(36)}_${randomUUID().slice(0, 6)}`;

export const uniqueName = (prefix: string) => `${testStamp()}-${prefix}`;

/** Configuration of a service under test: the local infrastructure, its own database. */
export function testConfig<T extends Record<string, unknown> = BaseConfig>(
  service: string,
  overrides: Record<string, string> = {},
  shape: Record<string, import('zod').ZodType> = baseConfigShape,
): T {
  return loadConfig(shape as typeof baseConfigShape, {
    ...process.env,
    SERVICE_NAME: service,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HTTP_PORT: '0',
    ...overrides,
  }) as unknown as T;
}

/**
 * A clock for tests that count in the gateway's fixed windows (rate limits, failed
 * authentications), which start at multiples of their length. It runs at the machine's pace
 * but reads as the start of a window from the moment `toWindowStart()` is called (and from its
 * creation), so every request a test makes within `windowMs` of that falls in one window,
 * however slow the machine: no window boundary can fall between them.
 */
export function windowClock(windowMs: number) {
  let offset = 0;
  const clock = {
    now: () => new Date(Date.now() + offset),
    /** From now on, time reads as the start of the next window (it never goes back) and runs on from there. */
    toWindowStart() {
      const real = Date.now();
      offset = Math.ceil((real + offset + 1) / windowMs) * windowMs - real;
    },
  };
  clock.toWindowStart();
  return clock;
}
