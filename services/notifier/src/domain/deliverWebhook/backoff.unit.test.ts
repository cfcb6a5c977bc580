import { fullRound, retryDelayMs, retrySchedule, roundSpanMs, singleAttemptRound } from './backoff';

describe('retry backoff', () => {
  it('when the base is 10 s and 5 retries are allowed, then the retries wait 10, 20, 40, 80 and 160 s', () => {
    expect(retrySchedule({ retryBaseMs: 10_000, maxRetries: 5 })).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
  });

  it('when the base is shortened for a test, then the schedule keeps its doubling shape', () => {
    expect(retrySchedule({ retryBaseMs: 200, maxRetries: 5 })).toEqual([200, 400, 800, 1_600, 3_200]);
  });

  it('when a full round is spent, then it lasted the sum of its delays', () => {
    expect(roundSpanMs({ retryBaseMs: 10_000, maxRetries: 5 })).toBe(310_000);
  });

  it('when no retries are allowed, then the schedule is empty', () => {
    expect(retrySchedule({ retryBaseMs: 10_000, maxRetries: 0 })).toEqual([]);
  });

  it('when asked for retry number zero or a fraction, then it refuses', () => {
    expect(() => retryDelayMs(0, 10_000)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5, 10_000)).toThrow(RangeError);
  });

  it('when a delivery starts, then its round allows the first attempt and every retry; a redelivery allows one, marked manual', () => {
    expect(fullRound({ maxRetries: 5 })).toEqual({ attempts: 0, size: 6 });
    expect(singleAttemptRound()).toEqual({ attempts: 0, size: 1, manual: true });
  });
});
