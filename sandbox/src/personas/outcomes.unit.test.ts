import { loanStory, PERSONA_LOAN_RISK } from './outcomes';

const badShare = (persona: Parameters<typeof loanStory>[0]) => {
  let bad = 0;
  for (let i = 0; i < 2000; i++)
    if (loanStory(persona, `seed-${i}`, 300_000, 6).some((s) => s.type === 'WRITTEN_OFF')) bad++;
  return bad / 2000;
};

describe('loan stories', () => {
  it('are the same for the same seed, and differ between seeds', () => {
    expect(loanStory('gig', 'a', 100_000, 6)).toEqual(loanStory('gig', 'a', 100_000, 6));
    const stories = new Set(
      Array.from({ length: 50 }, (_, i) => JSON.stringify(loanStory('heavy_betting', `s${i}`, 100_000, 6))),
    );
    expect(stories.size).toBeGreaterThan(1);
  });

  it('go bad more often for heavy betting and debt-stressed applicants than for salaried ones, near their rates', () => {
    const salaried = badShare('salaried');
    const betting = badShare('heavy_betting');
    const stressed = badShare('debt_stressed');
    expect(betting).toBeGreaterThan(salaried * 4);
    expect(stressed).toBeGreaterThan(salaried * 4);
    // 2,000 draws: within about four standard errors of the rate.
    expect(Math.abs(betting - PERSONA_LOAN_RISK.heavy_betting.bad)).toBeLessThan(0.045);
    expect(Math.abs(salaried - PERSONA_LOAN_RISK.salaried.bad)).toBeLessThan(0.02);
  });

  it('end repaid or written off, in month order, instalments within the tenor', () => {
    for (let i = 0; i < 200; i++) {
      const story = loanStory('overdrawn', `t${i}`, 250_000, 9);
      expect(['REPAID', 'WRITTEN_OFF']).toContain(story.at(-1)!.type);
      for (let k = 1; k < story.length; k++) expect(story[k]!.month).toBeGreaterThanOrEqual(story[k - 1]!.month);
      for (const step of story) if ('number' in step) expect(step.number).toBeLessThanOrEqual(9);
    }
  });
});
