import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * `scripts/ensure-node` on a machine seen for the first time: an empty home directory, and a
 * `node` on PATH older than the supported one (a stand-in that reports Node 20 and otherwise
 * runs this process's Node, so npm still works).
 */
const script = path.resolve(__dirname, 'ensure-node');

function oldNodeOnPath(dir: string): string {
  const bin = path.join(dir, 'old-node');
  mkdirSync(bin);
  const shim = path.join(bin, 'node');
  writeFileSync(
    shim,
    `#!/bin/sh\nif [ "$1" = -p ] && [ "$2" = 'process.versions.node.split(".")[0]' ]; then echo 20; exit 0; fi\nif [ "$1" = --version ]; then echo v20.0.0; exit 0; fi\nexec '${process.execPath}' "$@"\n`,
  );
  chmodSync(shim, 0o755);
  return `${bin}:${process.env.PATH}`;
}

/** Runs `eval "$(bash scripts/ensure-node)"` as the project's scripts do, then `node --version`. */
function asCaller(env: Record<string, string>) {
  const run = spawnSync(
    'bash',
    ['-c', `set -euo pipefail; eval "$(bash '${script}')"; echo "reached with $(node --version)"`],
    {
      encoding: 'utf8',
      env: { ...process.env, LOAN_INFRA_HOME: '', LOAN_NODE: '', ...env },
      timeout: 5 * 60_000,
    },
  );
  return { status: run.status, stdout: run.stdout ?? '', stderr: run.stderr ?? '' };
}

describe('ensure-node on a fresh machine', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ensure-node-'));
    dirs.push(dir);
    const home = path.join(dir, 'home');
    mkdirSync(home);
    return { dir, home };
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('when HOME has nothing in it and the node on PATH is too old, then Node 24 is installed into its cache and the caller runs on it', () => {
    const { dir, home } = fresh();
    const result = asCaller({ HOME: home, PATH: oldNodeOnPath(dir) });
    expect(result).toMatchObject({ status: 0 });
    expect(result.stdout).toMatch(/^reached with v24\./m);
    expect(existsSync(path.join(home, '.cache/loan-infra'))).toBe(true);
  });

  it('when the supported Node cannot be installed, then the caller stops with the reason instead of going on with the old one', () => {
    const { dir, home } = fresh();
    const result = asCaller({
      HOME: home,
      PATH: oldNodeOnPath(dir),
      // A registry that refuses every connection, and no retries of it.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
    });
    expect(result.status).not.toBe(0);
    expect(result.stdout).not.toContain('reached');
    expect(result.stderr).toContain('Node 24 or newer is required');
  });
});
