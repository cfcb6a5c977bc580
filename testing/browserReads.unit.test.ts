import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * A browser test asserts what the page shows once it has rendered. Playwright's count(),
 * allTextContents(), allInnerTexts() and isVisible() read the page as it is at that instant and
 * do not wait, so an assertion on them passes or fails by how fast the browser was. Every such
 * read in a test that drives a browser sits inside `eventually(...)` or `waitFor(...)`
 * (testing/helpers.ts), which retry until the assertion holds. Read from the source tree.
 */
const ROOT = join(__dirname, '..');
const SNAPSHOT_READS = new Set(['count', 'allTextContents', 'allInnerTexts', 'isVisible', 'isHidden']);
const RETRYING = new Set(['eventually', 'waitFor']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const browserTests = testFiles(ROOT).filter((file) => /from 'playwright(-core)?'/.test(readFileSync(file, 'utf8')));

/** Snapshot reads in `source` that no retrying helper encloses, as `file:line`. */
function unguardedReads(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const enclosedByRetry = (node: ts.Node): boolean => {
    for (let at = node.parent; at; at = at.parent) {
      if (ts.isCallExpression(at) && ts.isIdentifier(at.expression) && RETRYING.has(at.expression.text)) return true;
    }
    return false;
  };
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      SNAPSHOT_READS.has(node.expression.name.text) &&
      !enclosedByRetry(node)
    ) {
      const { line } = tree.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${relative(ROOT, file)}:${line + 1} ${node.expression.name.text}()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

describe('reads of a page in browser tests', () => {
  it('finds the browser tests', () => {
    expect(browserTests.map((file) => relative(ROOT, file))).toEqual(
      expect.arrayContaining(['services/gateway/src/entry-points/http/consoleRoutes.e2e.test.ts']),
    );
  });

  it('when a test counts, reads or checks the visibility of elements, then it retries until the page shows it', () => {
    expect(browserTests.flatMap((file) => unguardedReads(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('when a read is not retried, then the check names it', () => {
    const source =
      "import { chromium } from 'playwright-core';\nawait expect(page.locator('tr').count()).resolves.toBe(3);\nawait eventually(async () => expect(await page.locator('tr').count()).toBe(3));\n";
    expect(unguardedReads(join(ROOT, 'example.e2e.test.ts'), source)).toEqual(['example.e2e.test.ts:2 count()']);
  });
});
