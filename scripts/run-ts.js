// Runs a TypeScript script of the repository without a TypeScript runner: every .ts file it
// loads is transpiled on the fly (no type check: `tsc -b` does that), and @loan/* workspaces load
// from their built dist/. Usage: node scripts/run-ts.js path/to/script.ts [args...]
const { readFileSync } = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: filename,
  });
  module._compile(outputText, filename);
};

const script = process.argv[2];
if (!script) {
  console.error('usage: node scripts/run-ts.js path/to/script.ts [args...]');
  process.exit(2);
}
// The script sees its own arguments where it would if run directly.
process.argv.splice(1, 2, path.resolve(script));
require(path.resolve(script));
