import type { Logger } from '@loan/runtime';

/**
 * Runs the work on pending enrichments off the consumers' path, at most `concurrency` at a
 * time and one at a time per account (a second kick while one runs makes it run again once
 * more). What is not done when the process stops is picked up from the database later.
 */
export function createWorker(options: {
  concurrency: number;
  run: (accountId: string) => Promise<void>;
  logger: Logger;
}) {
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const queue = new Set<string>();
  let stopping = false;

  function launch(accountId: string) {
    const task = (async () => {
      try {
        do {
          again.delete(accountId);
          await options.run(accountId).catch((error: unknown) => {
            options.logger.warn({ err: error, accountId }, 'work on an enrichment failed; it will be retried');
          });
        } while (again.has(accountId) && !stopping);
      } finally {
        running.delete(accountId);
        next();
      }
    })();
    running.set(accountId, task);
  }

  function next() {
    if (stopping) return;
    for (const accountId of queue) {
      if (running.size >= options.concurrency) return;
      queue.delete(accountId);
      if (running.has(accountId)) again.add(accountId);
      else launch(accountId);
    }
  }

  return {
    /** Asks for work on an account now. */
    kick(accountId: string) {
      if (stopping) return;
      if (running.has(accountId)) again.add(accountId);
      else if (running.size < options.concurrency) launch(accountId);
      else queue.add(accountId);
    },
    busy: () => running.size + queue.size,
    /** Takes no more work and waits for what is running. */
    async stop() {
      stopping = true;
      queue.clear();
      await Promise.allSettled([...running.values()]);
    },
  };
}
export type Worker = ReturnType<typeof createWorker>;
