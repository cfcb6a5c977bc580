// Runs a service's own TypeScript bench file without a TypeScript runner: the file alone is
// transpiled (no type check) to CommonJS, its `../src/...` imports pointed at the service's
// built `dist/`, and the result run with node, its output captured.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { requireFromRoot, root } from './util.mjs';

export function transpileBench(tsFile, serviceDir) {
  const ts = requireFromRoot('typescript');
  const source = readFileSync(tsFile, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: tsFile,
  });
  const dist = path.join(serviceDir, 'dist').replace(/\\/g, '/');
  const js = outputText.replace(/require\((["'])\.\.\/src\//g, (_, q) => `require(${q}${dist}/`);
  // Under the repository (git-ignored .infra/) so that packages resolve from its node_modules.
  const outDir = path.join(root, '.infra', 'bench-build', path.basename(serviceDir));
  mkdirSync(outDir, { recursive: true });
  const outFile = path.join(outDir, path.basename(tsFile).replace(/\.ts$/, '.js'));
  writeFileSync(outFile, js);
  return outFile;
}

/** Runs a script with node; resolves with its output, killing it after `timeoutMs`. */
export function runNode(file, { env = {}, clearEnv = false, timeoutMs = 120_000, args = [] } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd: root,
      env: clearEnv ? env : { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}
