/** One message of a fetched batch, as far as its scheduling goes. */
export interface KeyedMessage {
  offset: string;
  key: Buffer | null;
}

/** How a keyed batch ended: every message handled (nothing set), or where it stopped and why. */
export interface KeyedBatchOutcome<M> {
  /** The first message not handled: it and every later one are fetched again. */
  stoppedAt?: M;
  /** What stopped the batch, when it was not being asked to stop (`proceed`). */
  error?: unknown;
}

/**
 * Handles a partition's batch with up to `limit` messages at once: messages of different keys
 * run side by side, those of one key one after the other in offset order (a message without a
 * key counts as the key ''). Every message is `schedule`d at once, synchronously and in offset
 * order, which answers what runs it once the messages of its key before it are handled.
 *
 * A run that throws stops the batch: no message starts after that, those under way end, and the
 * outcome names the first message not handled, with the error. So does `proceed` turning false
 * (the consumer stops), without an error. An error of `afterEach` (a heartbeat that finds the
 * group rebalancing) stops it like a handler's.
 */
export async function handleKeyedBatch<M extends KeyedMessage>(args: {
  messages: readonly M[];
  limit: number;
  schedule: (message: M) => () => Promise<void>;
  proceed: () => boolean;
  afterEach?: () => Promise<void>;
}): Promise<KeyedBatchOutcome<M>> {
  const { messages, limit, proceed } = args;
  const handled = new Array<boolean>(messages.length).fill(false);
  /** Per key, the end of its last message. */
  const tails = new Map<string, Promise<void>>();
  let failure: { error: unknown } | undefined;
  // Runs take a slot only once the messages of their key before them are handled: a key
  // that waits does not keep the others from running.
  let running = 0;
  const waiting: (() => void)[] = [];
  const slot = () => (running < limit ? (running++, Promise.resolve()) : new Promise<void>((r) => waiting.push(r)));
  const freeSlot = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  const stopped = () => failure !== undefined || !proceed();

  const step = (index: number, run: () => Promise<void>) => async () => {
    if (stopped()) return;
    await slot();
    try {
      if (stopped()) return;
      await run();
      handled[index] = true;
      await args.afterEach?.();
    } catch (error) {
      failure ??= { error };
    } finally {
      freeSlot();
    }
  };

  messages.forEach((message, index) => {
    const key = message.key?.toString('latin1') ?? '';
    tails.set(key, (tails.get(key) ?? Promise.resolve()).then(step(index, args.schedule(message))));
  });
  await Promise.all(tails.values());

  const first = handled.indexOf(false);
  if (first < 0) return {};
  return { stoppedAt: messages[first]!, ...(failure ? { error: failure.error } : {}) };
}
