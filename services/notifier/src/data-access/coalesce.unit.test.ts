import { coalesce } from './coalesce';

/** A write that holds each batch until the test lets it go, recording the batches it was sent. */
function heldWrite() {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const write = (items: string[]) => {
    batches.push(items);
    return new Promise<(string | Error)[]>((resolve) =>
      pending.push(() => resolve(items.map((i) => (i.startsWith('bad') ? new Error(`refused ${i}`) : `ok ${i}`)))),
    );
  };
  const release = async () => {
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, write, release };
}

describe('coalescing writes into bulk commands', () => {
  it('when a write finds none under way, then it goes at once and alone', async () => {
    const { batches, write, release } = heldWrite();
    const send = coalesce(write);
    const done = send('a');
    expect(batches).toEqual([['a']]);
    await release();
    await expect(done).resolves.toBe('ok a');
  });

  it('when writes arrive while one is under way, then they go together once it ends, each answered with its own result', async () => {
    const { batches, write, release } = heldWrite();
    const send = coalesce(write);
    const first = send('a');
    const rest = ['b', 'c', 'd'].map((i) => send(i));
    expect(batches).toEqual([['a']]);
    await release();
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    await release();
    await expect(first).resolves.toBe('ok a');
    await expect(Promise.all(rest)).resolves.toEqual(['ok b', 'ok c', 'ok d']);
  });

  it('when one item of a batch is refused, then only its caller gets the error', async () => {
    const { write, release } = heldWrite();
    const send = coalesce(write);
    const first = send('a');
    const [good, bad] = [send('b'), send('bad-c')];
    const refused = expect(bad).rejects.toThrow('refused bad-c');
    await release();
    await release();
    await expect(first).resolves.toBe('ok a');
    await expect(good).resolves.toBe('ok b');
    await refused;
  });

  it('when the bulk write fails as a whole, then every caller of that batch gets the error and later writes still go', async () => {
    let fail = true;
    const send = coalesce(async (items: string[]) => {
      if (fail) throw new Error('connection lost');
      return items;
    });
    await expect(Promise.all([send('a'), send('b')])).rejects.toThrow('connection lost');
    fail = false;
    await expect(send('c')).resolves.toBe('c');
  });

  it('when more writes wait than a batch may hold, then they go in batches of at most that size', async () => {
    const { batches, write, release } = heldWrite();
    const send = coalesce(write, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((i) => send(i));
    await release();
    await release();
    await release();
    await Promise.all(all);
    expect(batches).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });
});
