import { bucketLabels, daysBefore, durationWords, percent, presets, shortDay } from './portfolioModel';

describe('the portfolio in words', () => {
  it('says rates as whole percentages and nothing as a dash', () => {
    expect(percent(4 / 7)).toBe('57%');
    expect(percent(1)).toBe('100%');
    expect(percent(0)).toBe('0%');
    expect(percent(null)).toBe('—');
  });

  it('says a duration to the unit that matters', () => {
    expect(durationWords(42.4)).toBe('42 s');
    expect(durationWords(60)).toBe('1 min');
    expect(durationWords(185)).toBe('3 min 5 s');
    expect(durationWords(7_800)).toBe('2 h 10 min');
    expect(durationWords(97_200)).toBe('1 d 3 h');
    expect(durationWords(null)).toBe('—');
  });

  it('names the decision-time buckets from their bounds', () => {
    expect(bucketLabels([60, 300, 3_600, 86_400, null])).toEqual([
      'Up to 1 min',
      '1 min to 5 min',
      '5 min to 1 h',
      '1 h to 1 d',
      'Over 1 d',
    ]);
  });

  it('shortens days for an axis and counts periods back from today, today included', () => {
    expect(shortDay('2026-11-05')).toBe('5 Nov');
    expect(daysBefore('2026-03-01', 1)).toBe('2026-02-28');
    expect(presets('2026-11-27')[0]).toEqual({ label: 'Last 7 days', from: '2026-11-21', to: '2026-11-27' });
    expect(presets('2026-11-27').map((p) => p.from)).toEqual(['2026-11-21', '2026-10-29', '2026-08-30', '2025-11-28']);
  });
});
