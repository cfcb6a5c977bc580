import { handleKeyedBatch, type KeyedMessage } from './keyedBatch';

const message = (offset: number, key: string | null): KeyedMessage => ({
  offset: String(offset),
  key: key === null ? null : Buffer.from(key),
});

/** A handler whose runs end when the test says, recording when each starts and ends. */
function controlledRuns() {
  const log: string[] = [];
  const ends = new Map<string, () => void>();
  const failures = new Map<string, unknown>();
  return {
    log,
    run: (m: KeyedMessage) => async () => {
      log.push(`start ${m.offset}`);
      await new Promise<void>((resolve) => ends.set(m.offset, resolve));
      const failure = failures.get(m.offset);
      if (failure !== undefined) throw failure;
      log.push(`end ${m.offset}`);
    },
    end: async (offset: number) => {
      ends.get(String(offset))!();
      await new Promise((resolve) => setImmediate(resolve));
    },
    failWith: (offset: number, error: unknown) => failures.set(String(offset), error),
    started: () => log.filter((line) => line.startsWith('start')).map((line) => Number(line.split(' ')[1])),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('keyed batch', () => {
  it('when messages have different keys, then they run side by side; those of one key wait for the one before', async () => {
    const runs = controlledRuns();
    const messages = [message(0, 'a'), message(1, 'b'), message(2, 'a'), message(3, 'c')];
    const done = handleKeyedBatch({ messages, limit: 8, schedule: runs.run, proceed: () => true });
    await settle();
    expect(runs.started()).toEqual([0, 1, 3]);

    await runs.end(0);
    expect(runs.started()).toEqual([0, 1, 3, 2]);
    await runs.end(1);
    await runs.end(2);
    await runs.end(3);
    await expect(done).resolves.toEqual({});
  });

  it('when the limit is reached, then no other message starts until one ends, and a key that waits takes no place', async () => {
    const runs = controlledRuns();
    const messages = [message(0, 'a'), message(1, 'a'), message(2, 'a'), message(3, 'b'), message(4, 'c')];
    const done = handleKeyedBatch({ messages, limit: 2, schedule: runs.run, proceed: () => true });
    await settle();
    expect(runs.started()).toEqual([0, 3]);

    await runs.end(3);
    expect(runs.started()).toEqual([0, 3, 4]);
    await runs.end(0);
    expect(runs.started()).toEqual([0, 3, 4, 1]);
    await runs.end(4);
    await runs.end(1);
    await runs.end(2);
    await expect(done).resolves.toEqual({});
  });

  it('when messages have no key, then they are handled one after the other', async () => {
    const runs = controlledRuns();
    const done = handleKeyedBatch({
      messages: [message(0, null), message(1, null)],
      limit: 4,
      schedule: runs.run,
      proceed: () => true,
    });
    await settle();
    expect(runs.started()).toEqual([0]);
    await runs.end(0);
    await runs.end(1);
    await expect(done).resolves.toEqual({});
  });

  it('when a run throws, then nothing starts after it, those under way end, and the batch stops at the first message not handled', async () => {
    const runs = controlledRuns();
    const failure = new Error('database unreachable');
    runs.failWith(1, failure);
    const messages = [message(0, 'a'), message(1, 'b'), message(2, 'a'), message(3, 'c'), message(4, 'b')];
    const done = handleKeyedBatch({ messages, limit: 8, schedule: runs.run, proceed: () => true });
    await settle();
    expect(runs.started()).toEqual([0, 1, 3]);

    await runs.end(1);
    // 0 and 3 were under way; 2 (after 0) and 4 (after 1) do not start.
    await runs.end(0);
    await runs.end(3);
    const outcome = await done;
    expect(runs.started()).toEqual([0, 1, 3]);
    expect(outcome.stoppedAt?.offset).toBe('1');
    expect(outcome.error).toBe(failure);
  });

  it('when the batch is asked to stop, then nothing more starts and it names the first message not handled, without an error', async () => {
    const runs = controlledRuns();
    let proceed = true;
    const messages = [message(0, 'a'), message(1, 'a'), message(2, 'b')];
    const done = handleKeyedBatch({ messages, limit: 8, schedule: runs.run, proceed: () => proceed });
    await settle();
    proceed = false;
    await runs.end(0);
    await runs.end(2);
    const outcome = await done;
    expect(runs.started()).toEqual([0, 2]);
    expect(outcome).toEqual({ stoppedAt: messages[1] });
  });

  it('when the step after a message fails (a heartbeat finds a rebalance), then the batch stops after that message with the error', async () => {
    const runs = controlledRuns();
    const rebalancing = new Error('The group is rebalancing');
    let beats = 0;
    const messages = [message(0, 'a'), message(1, 'a')];
    const done = handleKeyedBatch({
      messages,
      limit: 8,
      schedule: runs.run,
      proceed: () => true,
      afterEach: async () => {
        beats += 1;
        throw rebalancing;
      },
    });
    await settle();
    await runs.end(0);
    const outcome = await done;
    expect(beats).toBe(1);
    expect(outcome.stoppedAt).toBe(messages[1]);
    expect(outcome.error).toBe(rebalancing);
  });
});
