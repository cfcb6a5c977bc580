import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { goldenSectionOf, renderGoldenSection } from './goldenTable';

/**
 * Rewrites the golden tables of docs/scoring.md from the current scorecard, or with `--check`
 * only says whether they are current (exit code 1 when not).
 * Run: `npm run golden -w services/scoring` (builds, then runs the compiled script).
 */
const DOC = join(__dirname, '../../../docs/scoring.md');

const markdown = readFileSync(DOC, 'utf8');
const { start, end, text } = goldenSectionOf(markdown);
const fresh = renderGoldenSection();
if (process.argv.includes('--check')) {
  process.stdout.write(
    fresh === text ? 'docs/scoring.md: golden tables are current\n' : 'docs/scoring.md: golden tables are stale\n',
  );
  process.exitCode = fresh === text ? 0 : 1;
} else if (fresh === text) {
  process.stdout.write('docs/scoring.md: golden tables unchanged\n');
} else {
  writeFileSync(DOC, `${markdown.slice(0, start)}${fresh}${markdown.slice(end)}`);
  process.stdout.write(
    'docs/scoring.md: golden tables rewritten; review the changed rows (git diff docs/scoring.md)\n',
  );
}
