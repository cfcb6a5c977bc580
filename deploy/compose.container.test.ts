import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../testing/stack';
import { composeServices } from './compose';
import { newLender, toDecision } from './lender';

/**
 * An SRE's first `docker compose up`, run for real: docker-compose.yml with the override that
 * swaps the three third-party images for the local ones (deploy/docker-compose.local-images.yml),
 * `up --wait` until every service is healthy and the topics job has completed (the health checks
 * asked every 1 to 5 s: deploy/docker-compose.probe-every-second.yml), one application
 * through the README's flow against it, then `down -v`. A project name of its own and free host
 * ports, so a developer's compose project and the shared infrastructure are not touched.
 *
 * When no Docker engine can be had (testing/container-setup.js), the test is skipped.
 */
const ROOT = path.resolve(__dirname, '..');
const skipped = process.env.LOAN_CONTAINERS_SKIP;
if (skipped) console.warn(`[compose] skipped: ${skipped}`);
const describeCompose = skipped ? describe.skip : describe;

// The third file only asks compose's own health checks every 1 to 5 s instead of every 10 s.
const FILES = [
  ...['-f', 'docker-compose.yml', '-f', 'deploy/docker-compose.local-images.yml'],
  ...['-f', 'deploy/docker-compose.probe-every-second.yml'],
];
const project = `loan-compose-${Date.now().toString(36)}`;
/** Our own services, whose logs say why a step failed. */
const NODE_SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor', 'sandbox'];

describeCompose('docker compose up, with the local images', () => {
  const env: Record<string, string | undefined> = { ...process.env };
  const ports = { gateway: 0, sandbox: 0 };
  let up = false;

  const compose = (...args: string[]) => {
    const run = spawnSync('docker', ['compose', '-p', project, ...FILES, ...args], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: run.status, out: `${run.stdout ?? ''}${run.stderr ?? ''}`.trim() };
  };

  beforeAll(async () => {
    const version = spawnSync('docker', ['compose', 'version', '--short'], { encoding: 'utf8' });
    if (version.status !== 0 || !/^v?2\./.test(version.stdout.trim()))
      throw new Error(`docker compose v2 is missing (bash scripts/containers compose installs it): ${version.stderr}`);
    ports.gateway = await freePort();
    ports.sandbox = await freePort();
    Object.assign(env, {
      GATEWAY_PORT: String(ports.gateway),
      SANDBOX_PORT: String(ports.sandbox),
      KAFKA_HOST_PORT: String(await freePort()),
      SCHEMA_REGISTRY_HOST_PORT: String(await freePort()),
      IMAGE_PREFIX: process.env.LOAN_IMAGE_PREFIX,
      IMAGE_TAG: process.env.LOAN_IMAGE_TAG,
    });
    const began = Date.now();
    const started = compose('up', '--wait', '--wait-timeout', '540', '--no-build', '--pull', 'never', '--quiet-pull');
    up = true;
    if (started.status !== 0) {
      const ps = compose('ps', '-a', '--format', 'table {{.Service}}\t{{.State}}\t{{.Status}}');
      const logs = compose('logs', '--no-color', '--tail', '30');
      throw new Error(
        `docker compose up --wait failed (exit ${started.status}):\n${started.out}\n${ps.out}\n${logs.out}`,
      );
    }
    console.log(`[compose] up --wait: every service healthy in ${((Date.now() - began) / 1000).toFixed(0)} s`);
  }, 600_000);

  afterAll(() => {
    if (!up) return;
    const down = compose('down', '--volumes', '--remove-orphans', '--timeout', '20');
    if (down.status !== 0) console.warn(`[compose] down failed (exit ${down.status}):\n${down.out}`);
  }, 120_000);

  it("when compose is up, then every service is healthy, the topics job has completed, and a lender's application goes through the README's flow to a signed decision", async () => {
    const ps = compose('ps', '-a', '--format', '{{.Service}} {{.State}} {{.Health}} {{.ExitCode}}');
    expect(ps.status).toBe(0);
    const states = Object.fromEntries(
      ps.out
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [service, state, health, exitCode] = line.split(' ');
          return [service, state === 'exited' ? `exited ${exitCode}` : `${state} ${health}`];
        }),
    );
    const expected = Object.fromEntries(
      composeServices()
        // A service behind a profile (jaeger, `--profile tracing`) is not started by a plain `up`.
        .filter((s) => s.profiles.length === 0)
        .map((s) => [s.name, s.name === 'topics' ? 'exited 0' : 'running healthy']),
    );
    expect(states).toEqual(expected);

    const network = spawnSync(
      'docker',
      ['network', 'inspect', '-f', '{{(index .IPAM.Config 0).Gateway}}', `${project}_default`],
      { encoding: 'utf8' },
    );
    expect(network.status).toBe(0);
    const gateway = composeServices().find((s) => s.name === 'gateway')!;
    const lender = await newLender(
      `http://127.0.0.1:${ports.gateway}`,
      gateway.env.ADMIN_TOKEN,
      network.stdout.trim(),
      'Compose Lender',
    );
    try {
      const { applicationId, decision } = await toDecision(lender, `http://127.0.0.1:${ports.sandbox}`);
      expect(decision.body.data).toMatchObject({ applicationId, status: 'COMPLETED', score: expect.any(Number) });
      expect(lender.signed(decision)).toBe(true);
      const read = await lender.api('GET', `/api/applications/${applicationId}`);
      expect(read.body).toMatchObject({ status: 'COMPLETED' });
    } catch (error) {
      // What the services said, before `down` removes them.
      const ps = compose('ps', '-a', '--format', 'table {{.Service}}\t{{.State}}\t{{.Status}}');
      const logs = compose('logs', '--no-color', '--tail', '40', ...NODE_SERVICES);
      console.error(`[compose] the flow failed:\n${ps.out}\n${logs.out}`);
      throw error;
    } finally {
      await lender.receiver.close();
    }
  }, 420_000);
});
