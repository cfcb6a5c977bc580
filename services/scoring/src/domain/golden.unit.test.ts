import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOLDEN_CASES, renderGoldenTable, runGoldenCase } from './golden';

const SCORING_DOC = join(__dirname, '../../../../docs/scoring.md');

describe('golden table', () => {
  it.each(GOLDEN_CASES.map((golden) => [golden.persona, golden.ask, golden]))(
    'when %s asks for %o, then the scorecard still decides as the golden table says',
    (_, __, golden) => {
      expect(runGoldenCase(golden)).toEqual(golden.expected);
    },
  );

  it('when the docs are read, then their golden table is the one these cases render', () => {
    expect(readFileSync(SCORING_DOC, 'utf8')).toContain(renderGoldenTable(GOLDEN_CASES));
  });
});
