import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The deployment artefacts (Dockerfile, docker-compose.yml, the Helm chart, the dashboard,
 * the alert rules with their `promtool test rules` cases, and the AsyncAPI document) pass
 * scripts/deploy-check. The first run on a
 * machine installs the tools it needs (several minutes); later runs take seconds.
 */
const root = path.resolve(__dirname, '..');
const services = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'];

describe('scripts/deploy-check', () => {
  let result: { status: number | null; output: string };

  beforeAll(() => {
    const run = spawnSync('bash', [path.join(root, 'scripts', 'deploy-check')], {
      cwd: root,
      encoding: 'utf8',
      env: process.env,
      timeout: 25 * 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    result = { status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}` };
  }, 26 * 60_000);

  it('passes every check', () => {
    if (result.status !== 0) console.error(result.output.slice(-8_000));
    expect(result.status).toBe(0);
    expect(result.output).toContain('deploy-check: all checks passed');
    expect(result.output).not.toMatch(/^\S.*\s+FAIL\s+\d/m);
  });

  it('lists every service with its probes, resources and autoscaler', () => {
    const table = result.output.split('Services in the rendered default chart:')[1] ?? '';
    for (const service of services) {
      const row = table.split('\n').find((line) => line.trim().startsWith(`${service} `));
      expect(row).toBeDefined();
      expect(row).toMatch(/liveness\+readiness\+startup/);
      expect(row).toMatch(/\d+m?\/\d+m? cpu, \d+Mi\/\d+Mi/);
      expect(row).toMatch(/\s\d+-\d+\s/);
      expect(row).not.toMatch(/MISSING|FAIL/);
    }
  });

  it('validates the rendered manifests, the compose file, the alerts and the AsyncAPI document', () => {
    for (const step of [
      'kubeconform',
      'helm lint (default values)',
      'helm lint (production values)',
      'compose: compose-spec JSON schema',
      'asyncapi: up to date with libs/contracts',
      'alerts: promcheck rules',
      'alerts: promtool check rules',
      'alerts: promtool test rules',
      'dashboard and alerts: PromQL, metric names',
      'helm: per-service rollout, overrides, KEDA',
    ]) {
      const line = result.output.split('\n').find((l) => l.startsWith(step));
      expect(line).toMatch(/\sok\s/);
    }
  });
});
