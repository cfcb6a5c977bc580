import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.join(__dirname, '..', 'scripts', 'prune-dist.mjs');

describe('scripts/prune-dist.mjs, run after every build', () => {
  it('when a source file was moved, then its old compiled files go and everything else in dist stays', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'prune-dist-'));
    try {
      writeFileSync(path.join(root, 'package.json'), JSON.stringify({ workspaces: ['services/one'] }));
      const src = path.join(root, 'services/one/src');
      const dist = path.join(root, 'services/one/dist');
      mkdirSync(path.join(src, 'entry-points/consumers'), { recursive: true });
      mkdirSync(path.join(dist, 'entry-points/consumers'), { recursive: true });
      writeFileSync(path.join(src, 'entry-points/consumers/index.ts'), '');
      // What the build made of the file before it moved into the folder, and of the moved one.
      const stale = ['consumers.js', 'consumers.js.map', 'consumers.d.ts', 'consumers.d.ts.map'];
      const current = ['consumers/index.js', 'consumers/index.d.ts'];
      for (const file of [...stale, ...current]) writeFileSync(path.join(dist, 'entry-points', file), '');
      // A bundle and an asset have no declaration: not the compiler's, left alone.
      writeFileSync(path.join(dist, 'console-3f2a.js'), '');
      writeFileSync(path.join(dist, '.tsbuildinfo'), '');
      execFileSync(process.execPath, [script, root], { stdio: 'pipe' });
      for (const file of stale) expect(existsSync(path.join(dist, 'entry-points', file))).toBe(false);
      for (const file of current) expect(existsSync(path.join(dist, 'entry-points', file))).toBe(true);
      expect(existsSync(path.join(dist, 'console-3f2a.js'))).toBe(true);
      expect(existsSync(path.join(dist, '.tsbuildinfo'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
