/**
 * Bundles the lender console into services/gateway/dist/console: the page (index.html) and its
 * assets under hashed names (assets/console-<hash>.js and .css), which the gateway serves under
 * /console with a year's cache. Part of `npm run build`, after `tsc -b` has type-checked it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../dist/console');
const assets = path.join(out, 'assets');

rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { console: 'src/main.tsx' },
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2022'],
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  outdir: assets,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

const names = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
const js = names.find((name) => name.endsWith('.js'));
const css = names.find((name) => name.endsWith('.css'));
if (!js || !css) throw new Error(`the console bundle is incomplete: ${names.join(', ')}`);
const page = readFileSync(path.join(here, 'index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css);
writeFileSync(path.join(out, 'index.html'), page);
console.error(`[console] ${path.relative(process.cwd(), out)}: ${js}, ${css}`);
