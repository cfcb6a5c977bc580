import { parseDuration } from './duration';

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2_000],
    ['20m', 1_200_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['1.5s', 1_500],
    ['250', 250],
  ])('when "%s" is parsed, then it is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '5 minutes', '-1s', '2w'])('when "%s" is parsed, then it is refused', (text) => {
    expect(() => parseDuration(text)).toThrow(/not a duration/);
  });
});
