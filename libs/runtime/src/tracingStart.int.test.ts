import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * What a service's start script does first (`import '@loan/runtime/dist/otel'`), in a process of
 * its own: without an exporter in the environment nothing of the SDK is loaded and nothing listens
 * to http; with one, the SDK is started and outgoing requests are followed through the http
 * module's diagnostics channel, http itself left unpatched.
 */
const ROOT = path.resolve(__dirname, '../../..');
const OTEL = path.join(ROOT, 'libs/runtime/dist/otel.js');

function startIn(env: Record<string, string>) {
  const script = `
    require(${JSON.stringify(OTEL)});
    const loaded = Object.keys(require.cache).some((file) => file.includes('@opentelemetry/sdk-node'));
    const http = require('node:http');
    const followed = require('node:diagnostics_channel').hasSubscribers('http.client.request.created');
    console.log(JSON.stringify({ loaded, patched: Boolean(http.request.__wrapped), followed, serviceName: process.env.OTEL_SERVICE_NAME ?? null }));
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', SERVICE_NAME: 'scoring', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as {
    loaded: boolean;
    patched: boolean;
    followed: boolean;
    serviceName: string | null;
  };
}

beforeAll(() => {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'libs/runtime'], { cwd: ROOT });
});

it('when no exporter is set, then the start loads no SDK, patches nothing and follows no request', () => {
  expect(startIn({})).toEqual({ loaded: false, patched: false, followed: false, serviceName: null });
  expect(startIn({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toMatchObject(
    { loaded: false, patched: false, followed: false },
  );
});

it('when an exporter is set, then the SDK is started, named after the service, and outgoing requests are followed without patching http', () => {
  expect(startIn({ OTEL_TRACES_EXPORTER: 'console' })).toEqual({
    loaded: true,
    patched: false,
    followed: true,
    serviceName: 'scoring',
  });
  expect(startIn({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'scoring-eu' }).serviceName).toBe('scoring-eu');
});
