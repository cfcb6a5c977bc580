import { loadGatewayConfig } from './config';

const production = {
  NODE_ENV: 'production',
  DATA_KEY: 'a-production-data-key-of-our-own-1234',
  ADMIN_TOKEN: 'an-admin-token-of-our-own',
  PROVIDER_WEBHOOK_SECRET: 'a-webhook-secret-of-our-own',
  INTERNAL_TOKEN: 'an-internal-token-of-our-own',
};

describe('the gateway configuration', () => {
  it('when the session and key-cache durations are left out, then they take their defaults and production accepts them', () => {
    const config = loadGatewayConfig(production);
    expect([config.CONSOLE_SESSION_TTL, config.CONSOLE_SESSION_IDLE, config.API_KEY_CACHE_TTL]).toEqual([8 * 3_600_000, 30 * 60_000, 5_000]);
    expect(config.production).toBe(true);
    expect(loadGatewayConfig({}).production).toBe(false);
  });

  it('when a duration is beyond its bounds, then the gateway refuses it by name', () => {
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_TTL: '30d' })).toThrow(/CONSOLE_SESSION_TTL is at most 7d/);
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_TTL: '10s' })).toThrow(/CONSOLE_SESSION_TTL is at least 1m/);
    expect(() => loadGatewayConfig({ API_KEY_CACHE_TTL: '1h' })).toThrow(/API_KEY_CACHE_TTL is at most 5m/);
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_IDLE: '2d' })).toThrow(/CONSOLE_SESSION_IDLE is at most 24h/);
    expect(() => loadGatewayConfig({ CONSOLE_SESSION_TTL: '1h', CONSOLE_SESSION_IDLE: '2h' })).toThrow(/CONSOLE_SESSION_IDLE must not be longer/);
  });

  it('when production is given durations a laptop may use but production should not, then it refuses each by name', () => {
    expect(loadGatewayConfig({ CONSOLE_SESSION_TTL: '24h', CONSOLE_SESSION_IDLE: '8h', API_KEY_CACHE_TTL: '1m' }).CONSOLE_SESSION_TTL).toBe(24 * 3_600_000);
    expect(() => loadGatewayConfig({ ...production, CONSOLE_SESSION_TTL: '24h', CONSOLE_SESSION_IDLE: '8h', API_KEY_CACHE_TTL: '1m' })).toThrow(
      /^Refusing to start with NODE_ENV=production: CONSOLE_SESSION_TTL is above 12h .*; CONSOLE_SESSION_IDLE is above 1h .*; API_KEY_CACHE_TTL is above 30s/,
    );
  });
});
