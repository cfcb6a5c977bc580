import { GOLDEN_CASES, renderGoldenTable, runGoldenCase } from '../golden';

/**
 * Prints the golden table as the current scorecard scores it, and the cases to paste into
 * golden.ts. Run: `npx tsx services/scoring/src/domain/__fixtures__/printGoldenTable.ts`.
 */
const rows = GOLDEN_CASES.map((golden) => ({ ...golden, expected: runGoldenCase(golden) }));

process.stdout.write(`${renderGoldenTable(rows)}\n\n`);
process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
