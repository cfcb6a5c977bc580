// Runs a TypeScript bench of this service without a TypeScript runner: every .ts file it loads
// is transpiled on the fly (no type check); @loan/* libraries load from their built dist/.
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

require(path.resolve(__dirname, process.argv[2] ?? 'delivery.bench.ts'));
