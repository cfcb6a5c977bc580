const { execFileSync } = require('node:child_process');
const path = require('node:path');

/**
 * Starts the local broker, registry and database once for the whole run (the script reuses
 * them when they are already up) and exports their addresses to the tests.
 */
module.exports = async function globalSetup() {
  if (globalThis.__loanInfraReady) return;
  // Infrastructure run elsewhere (a cluster, or started by hand): use the addresses given.
  if (process.env.LOAN_INFRA_EXTERNAL === '1') return;
  const script = path.join(__dirname, '..', 'scripts', 'infra');
  execFileSync('bash', [script, 'start'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const env = execFileSync('bash', [script, 'env'], { encoding: 'utf8' });
  for (const line of env.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m && process.env[m[1]] === undefined) process.env[m[1]] = m[2];
  }
  globalThis.__loanInfraReady = true;
};
