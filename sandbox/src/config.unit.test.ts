import { loadConfig } from './config';

describe('sandbox configuration', () => {
  it('when the environment is empty, then the documented defaults apply', () => {
    expect(loadConfig({})).toEqual({
      port: 8090,
      host: '127.0.0.1',
      publicUrl: null,
      webhookUrl: 'http://127.0.0.1:8080/provider/webhooks/mono',
      webhookSecret: 'sandbox-webhook-secret',
      jobDelayMs: 2_000,
      sessionTtlMs: 86_400_000,
      webhookRetryBaseMs: 1_000,
      webhookMaxAttempts: 5,
      bureauSlowDelayMs: 30_000,
      accountCacheSize: 100,
      jobRetentionMs: 3_600_000,
      retentionMs: 8 * 86_400_000,
      maxSessions: 10_000,
      logLevel: 'info',
    });
  });

  it('when durations and a public URL are given, then they are parsed', () => {
    const config = loadConfig({
      SANDBOX_JOB_DELAY: '500ms',
      SANDBOX_SESSION_TTL: '20m',
      SANDBOX_PUBLIC_URL: 'http://sandbox.local:9000/',
    });
    expect(config).toMatchObject({ jobDelayMs: 500, sessionTtlMs: 1_200_000, publicUrl: 'http://sandbox.local:9000' });
  });

  it('when a value is malformed, then loading fails naming the variable', () => {
    expect(() => loadConfig({ SANDBOX_SESSION_TTL: 'tomorrow' })).toThrow(/SANDBOX_SESSION_TTL/);
    expect(() => loadConfig({ SANDBOX_PORT: 'eighty' })).toThrow(/SANDBOX_PORT/);
  });

  it('when the config is loaded, then it is frozen', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});
