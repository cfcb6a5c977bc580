#!/usr/bin/env node
// Removes what the TypeScript build left in each workspace's dist/ for a source file that no
// longer exists (moved or deleted): `tsc -b` never deletes outputs, and a stale
// `dist/entry-points/consumers.js` would shadow a new `dist/entry-points/consumers/index.js`.
// A compiled file is known by its declaration (`X.d.ts` beside `X.js`); anything else in dist/
// (bundles, copied assets) is left alone.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const workspaces = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces ?? [];

function* declarations(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* declarations(full);
    else if (entry.name.endsWith('.d.ts')) yield full;
  }
}

let removed = 0;
for (const workspace of workspaces) {
  const dist = path.join(root, workspace, 'dist');
  const src = path.join(root, workspace, 'src');
  if (!existsSync(dist) || !existsSync(src)) continue;
  for (const declaration of [...declarations(dist)]) {
    const stem = path.relative(dist, declaration).slice(0, -'.d.ts'.length);
    if (['.ts', '.tsx', '.mts', '.cts'].some((ext) => existsSync(path.join(src, stem + ext)))) continue;
    for (const suffix of ['.js', '.js.map', '.d.ts', '.d.ts.map']) {
      const file = path.join(dist, stem + suffix);
      if (existsSync(file)) {
        rmSync(file);
        removed++;
      }
    }
  }
}
if (removed > 0) console.error(`[build] removed ${removed} compiled files whose sources are gone`);
