import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * What an SRE meets on a first production start: every service, run from its built entry
 * point with NODE_ENV=production and no secrets, refuses to start, exits non-zero and says in
 * one line which settings to set; with secrets of its own it gets past its configuration.
 */
const root = path.resolve(__dirname, '..');
const services = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'];

function start(service: string, env: Record<string, string>, timeout = 20_000) {
  const run = spawnSync(process.execPath, [path.join(root, 'services', service, 'dist', 'start.js')], {
    encoding: 'utf8',
    // Nothing listens on these: a start that gets past its configuration fails to connect.
    env: {
      PATH: process.env.PATH ?? '',
      SERVICE_NAME: service,
      KAFKA_BROKERS: '127.0.0.1:1',
      MONGO_URL: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=500',
      ...env,
    },
    timeout,
  });
  return { status: run.status, stderr: run.stderr.trim() };
}

const ownSecrets = {
  DATA_KEY: 'a-production-data-key-of-our-own-1234',
  ADMIN_TOKEN: 'an-admin-token-of-our-own',
  PROVIDER_WEBHOOK_SECRET: 'a-webhook-secret-of-our-own',
  BUREAU_API_KEY: 'a-bureau-key-of-our-own',
  INTERNAL_TOKEN: 'an-internal-token-of-our-own',
  ANALYTICS_KEY: 'an-analytics-key-of-our-own',
  DECISION_SIGNING_KEY: 'n8bN2vQm0F3yXk7P1sJc4Lw9Zt6Hd5Ra2Ue8Yo0Ig3M',
  ALLOW_PRIVATE_WEBHOOK_URLS: 'false',
};

describe('a production start', () => {
  it.each(services)(
    'when %s starts with NODE_ENV=production and no secrets, then it exits 1 naming each missing secret on one line',
    (service) => {
      const { status, stderr } = start(service, { NODE_ENV: 'production' });
      expect(status).toBe(1);
      expect(stderr.split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^Refusing to start with NODE_ENV=production: .*DATA_KEY is not set/);
      if (service === 'gateway')
        expect(stderr).toMatch(
          /ADMIN_TOKEN is not set.*PROVIDER_WEBHOOK_SECRET is not set.*DECISION_SIGNING_KEY is not set/,
        );
      if (service === 'scoring') expect(stderr).toContain('BUREAU_API_KEY is not set');
      if (service === 'gateway' || service === 'notifier' || service === 'scoring')
        expect(stderr).toContain('INTERNAL_TOKEN is not set');
      if (service === 'notifier') expect(stderr).toContain('ANALYTICS_KEY is not set');
    },
  );

  it('when the gateway is given the built-in development secrets, then it refuses each by name', () => {
    const { status, stderr } = start('gateway', {
      NODE_ENV: 'production',
      ...ownSecrets,
      DATA_KEY: 'local-development-data-key-change-me',
      ADMIN_TOKEN: 'local-admin-token',
    });
    expect(status).toBe(1);
    expect(stderr).toContain('DATA_KEY is the built-in development value');
    expect(stderr).toContain('ADMIN_TOKEN is the built-in development value');
    expect(stderr).not.toContain('PROVIDER_WEBHOOK_SECRET');
  });

  it('when the gateway is given a named admin token shorter than 24 characters, then it refuses it by name', () => {
    const { status, stderr } = start('gateway', {
      NODE_ENV: 'production',
      ...ownSecrets,
      ADMIN_TOKENS: 'ops-ada:only-16-characters',
    });
    expect(status).toBe(1);
    expect(stderr).toMatch(
      /^Refusing to start with NODE_ENV=production: the admin token of ops-ada \(ADMIN_TOKENS\) is shorter than 24 characters/,
    );
  });

  it('when the notifier is allowed private webhook addresses, then it refuses that', () => {
    const { status, stderr } = start('notifier', {
      NODE_ENV: 'production',
      ...ownSecrets,
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    });
    expect(status).toBe(1);
    expect(stderr).toMatch(
      /^Refusing to start with NODE_ENV=production: ALLOW_PRIVATE_WEBHOOK_URLS=true is not allowed/,
    );
  });

  it.each(services)(
    'when %s starts with NODE_ENV=production and secrets of its own, then its configuration is accepted',
    (service) => {
      // It goes on to connect (to nothing here) and is stopped after a few seconds.
      const { stderr } = start(service, { NODE_ENV: 'production', ...ownSecrets }, 3_000);
      expect(stderr).not.toMatch(/Refusing to start|Invalid configuration/);
    },
  );
});
