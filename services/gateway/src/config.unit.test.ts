import { adminTokensOf, loadGatewayConfig } from './config';

const production = {
  NODE_ENV: 'production',
  DATA_KEY: 'a-production-data-key-of-our-own-1234',
  ADMIN_TOKEN: 'an-admin-token-of-our-own',
  PROVIDER_WEBHOOK_SECRET: 'a-webhook-secret-of-our-own',
  INTERNAL_TOKEN: 'an-internal-token-of-our-own',
  DECISION_SIGNING_KEY: 'n8bN2vQm0F3yXk7P1sJc4Lw9Zt6Hd5Ra2Ue8Yo0Ig3M',
};

describe('the gateway configuration', () => {
  it('when the session and key-cache durations are left out, then they take their defaults and production accepts them', () => {
    const config = loadGatewayConfig(production);
    expect([config.CONSOLE_SESSION_TTL, config.CONSOLE_SESSION_IDLE, config.API_KEY_CACHE_TTL]).toEqual([
      8 * 3_600_000,
      30 * 60_000,
      5_000,
    ]);
    expect(config.production).toBe(true);
    expect(loadGatewayConfig({}).production).toBe(false);
  });

  it('when TRACE_UI_URL is a URL, then the console links to it; when empty (compose without tracing), there is none; anything else is refused by name', () => {
    expect(loadGatewayConfig({ TRACE_UI_URL: 'http://localhost:16686' }).TRACE_UI_URL).toBe('http://localhost:16686');
    expect(loadGatewayConfig({ TRACE_UI_URL: '' }).TRACE_UI_URL).toBeUndefined();
    expect(loadGatewayConfig({}).TRACE_UI_URL).toBeUndefined();
    expect(() => loadGatewayConfig({ TRACE_UI_URL: 'jaeger' })).toThrow(/TRACE_UI_URL must be a URL/);
  });

  it('when a duration is beyond its bounds, then the gateway refuses it by name', () => {
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_TTL: '30d' })).toThrow(/CONSOLE_SESSION_TTL is at most 7d/);
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_TTL: '10s' })).toThrow(/CONSOLE_SESSION_TTL is at least 1m/);
    expect(() => loadGatewayConfig({ API_KEY_CACHE_TTL: '1h' })).toThrow(/API_KEY_CACHE_TTL is at most 5m/);
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_IDLE: '2d' })).toThrow(/CONSOLE_SESSION_IDLE is at most 24h/);
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_TTL: '1h', CONSOLE_SESSION_IDLE: '2h' })).toThrow(
      /CONSOLE_SESSION_IDLE must not be longer/,
    );
  });

  it('when production is given durations a laptop may use but production should not, then it refuses each by name', () => {
    expect(
      loadGatewayConfig({ CONSOLE_SESSION_TTL: '24h', CONSOLE_SESSION_IDLE: '8h', API_KEY_CACHE_TTL: '1m' })
        .CONSOLE_SESSION_TTL,
    ).toBe(24 * 3_600_000);
    expect(() =>
      loadGatewayConfig({
        ...production,
        CONSOLE_SESSION_TTL: '24h',
        CONSOLE_SESSION_IDLE: '8h',
        API_KEY_CACHE_TTL: '1m',
      }),
    ).toThrow(
      /^Refusing to start with NODE_ENV=production: CONSOLE_SESSION_TTL is above 12h .*; CONSOLE_SESSION_IDLE is above 1h .*; API_KEY_CACHE_TTL is above 30s/,
    );
  });

  it('when ADMIN_TOKENS names admin callers, then each is a caller beside ADMIN_TOKEN (named admin), and a malformed, duplicate or reserved name is refused', () => {
    const config = loadGatewayConfig({ ADMIN_TOKENS: 'ops-adaeze:token-of-adaeze-1, ci:token-of-ci-2' });
    expect(adminTokensOf(config)).toEqual([
      { name: 'admin', token: 'local-admin-token' },
      { name: 'ops-adaeze', token: 'token-of-adaeze-1' },
      { name: 'ci', token: 'token-of-ci-2' },
    ]);
    expect(loadGatewayConfig({}).ADMIN_TOKENS).toEqual([]);
    for (const bad of [
      'no-colon-here',
      'ops:short',
      'two words:long-enough-token',
      'ops:token-number-1,ops:token-number-2',
      'admin:long-enough-token',
      'a:same-token-1,b:same-token-1',
    ]) {
      expect(() => loadGatewayConfig({ ADMIN_TOKENS: bad })).toThrow(/ADMIN_TOKENS/);
    }
  });

  it('when production is given a named admin token that is short, built in or ADMIN_TOKEN itself, then it refuses it by name', () => {
    const long = 'a-named-admin-token-of-24-chars-or-more';
    expect(loadGatewayConfig({ ...production, ADMIN_TOKENS: `ops:${long}` }).ADMIN_TOKENS).toHaveLength(1);
    expect(() => loadGatewayConfig({ ...production, ADMIN_TOKENS: 'ops:short-but-8-chars' })).toThrow(
      /admin token of ops \(ADMIN_TOKENS\) is shorter than 24/,
    );
    expect(() => loadGatewayConfig({ ...production, ADMIN_TOKENS: 'ops:local-admin-token' })).toThrow(
      /admin token of ops/,
    );
    const same = 'an-admin-token-of-our-own-and-long-enough';
    expect(() => loadGatewayConfig({ ...production, ADMIN_TOKEN: same, ADMIN_TOKENS: `ops:${same}` })).toThrow(
      /ADMIN_TOKEN itself/,
    );
  });

  it('when AUDIT_RETENTION is outside 30d..3650d, then it is refused by name', () => {
    expect(loadGatewayConfig({}).AUDIT_RETENTION).toBe(400 * 86_400_000);
    expect(() => loadGatewayConfig({ AUDIT_RETENTION: '7d' })).toThrow(/AUDIT_RETENTION is at least 30d/);
    expect(() => loadGatewayConfig({ AUDIT_RETENTION: '4000d' })).toThrow(/AUDIT_RETENTION is at most 3650d/);
  });

  it('when production starts without DECISION_SIGNING_KEY, then it refuses by name; in development the key is derived from DATA_KEY', () => {
    const { DECISION_SIGNING_KEY: _key, ...withoutKey } = production;
    expect(() => loadGatewayConfig(withoutKey)).toThrow(
      /^Refusing to start with NODE_ENV=production: DECISION_SIGNING_KEY is not set$/,
    );
    expect(() => loadGatewayConfig({ ...withoutKey, DECISION_SIGNING_KEY: '' })).toThrow(
      /DECISION_SIGNING_KEY is not set/,
    );
    expect(loadGatewayConfig(production).DECISION_SIGNING_KEY).toBe(production.DECISION_SIGNING_KEY);
    expect(loadGatewayConfig({ DECISION_SIGNING_KEY: '' }).DECISION_SIGNING_KEY).toBeUndefined();
    expect(() => loadGatewayConfig({ ...production, DECISION_SIGNING_KEY: 'too-short' })).toThrow(
      /DECISION_SIGNING_KEY must be a 32-byte Ed25519 seed/,
    );
  });
});
