import { roundTripCheck } from './probe';

describe('roundTripCheck', () => {
  it('when the dependency answers, then ready; when it refuses, then not ready', async () => {
    let answer = true;
    const check = roundTripCheck(
      async () => {
        if (!answer) throw new Error('refused');
      },
      { reuseMs: 0 },
    );
    expect(await check()).toBe(true);
    answer = false;
    expect(await check()).toBe(false);
    answer = true;
    expect(await check()).toBe(true);
  });

  it('when the dependency stops answering, then not ready after the timeout, with one round trip in flight however often it is asked', async () => {
    let trips = 0;
    let release: () => void = () => undefined;
    const check = roundTripCheck(
      () => {
        trips += 1;
        return new Promise<void>((resolve) => (release = resolve));
      },
      { timeoutMs: 20, reuseMs: 0 },
    );
    const results = await Promise.all([check(), check(), check()]);
    expect(results).toEqual([false, false, false]);
    expect(await check()).toBe(false);
    expect(trips).toBe(1);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await check()).toBe(false); // a new round trip, which hangs again
    expect(trips).toBe(2);
    release();
    expect(await check()).toBe(true);
  });

  it('when asked again within the reuse period, then the last result is reused without a round trip', async () => {
    let trips = 0;
    let clock = 0;
    const check = roundTripCheck(async () => void (trips += 1), { reuseMs: 1_000, now: () => clock });
    await check();
    await check();
    expect(trips).toBe(1);
    clock = 1_000;
    await check();
    expect(trips).toBe(2);
  });
});
