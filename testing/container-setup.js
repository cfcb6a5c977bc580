const { spawnSync } = require('node:child_process');
const path = require('node:path');

/**
 * The container tier's setup: a Docker engine (installed and started when this machine allows),
 * the local base images and our images from the Dockerfile (scripts/containers), once for the
 * whole run; the images' tags go to the tests. When no engine can be had, the reason goes to
 * LOAN_CONTAINERS_SKIP and every container test is skipped. testcontainers' reaper (Ryuk) is
 * off: its image would come from a registry; the tests stop what they start, and
 * `scripts/containers clean` removes what an interrupted run left.
 */
module.exports = async function containerSetup() {
  if (globalThis.__loanContainersReady) return;
  globalThis.__loanContainersReady = true;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  const script = path.join(__dirname, '..', 'scripts', 'containers');
  if (process.env.LOAN_CONTAINERS_BUILT !== '1') {
    const began = Date.now();
    const run = spawnSync('bash', [script, 'all'], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
    process.stderr.write(run.stderr ?? '');
    if (run.status === 3) {
      const reason = /no Docker engine: (.*)/.exec(run.stderr ?? '')?.[1] ?? 'no Docker engine';
      process.env.LOAN_CONTAINERS_SKIP = reason;
      console.warn(`\n[containers] no Docker engine (${reason}): every container test is skipped`);
      return;
    }
    if (run.status !== 0) throw new Error(`scripts/containers failed (exit ${run.status})`);
    console.log(`\n[containers] images ready in ${((Date.now() - began) / 1000).toFixed(0)} s`);
  }
  const env = spawnSync('bash', [script, 'env'], { encoding: 'utf8' }).stdout;
  for (const line of env.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m && process.env[m[1]] === undefined) process.env[m[1]] = m[2];
  }
};
