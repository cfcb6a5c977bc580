import {
  ConfigError,
  baseConfigShape,
  booleanSetting,
  durationMs,
  internalTokenSetting,
  loadConfig,
} from '@loan/runtime';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/** A caller of the admin API: its name (in the audit) and its token. */
export interface AdminToken {
  name: string;
  token: string;
}
const ADMIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;
/** The shortest named admin token a production start takes. */
const PRODUCTION_ADMIN_TOKEN_MIN = 24;

export const configShape = {
  ...baseConfigShape,
  SERVICE_NAME: z.string().default('gateway').describe('Service name'),
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('Port of the public API'),
  HTTP_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe(
      'Internal port of /healthz, /readyz and /metrics (for probes and Prometheus; never behind the public ingress)',
    ),
  GATEWAY_INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default(() => randomUUID().replace(/-/g, '').slice(0, 16))
    .describe('Identity of this replica; names its reply topic'),
  INTERNAL_TOKEN: internalTokenSetting,
  ADMIN_TOKEN: z
    .string()
    .min(8)
    .default('local-admin-token')
    .describe('Token of the admin API (x-admin-token); its caller is named "admin" in the audit'),
  ADMIN_TOKENS: z
    .string()
    .default('')
    .transform((text, ctx): AdminToken[] => {
      const pairs = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const tokens: AdminToken[] = [];
      for (const pair of pairs) {
        const at = pair.indexOf(':');
        const name = at < 0 ? '' : pair.slice(0, at).trim();
        const token = at < 0 ? '' : pair.slice(at + 1).trim();
        if (!ADMIN_NAME.test(name) || token.length < 8 || token.length > 200) {
          ctx.addIssue({
            code: 'custom',
            message:
              'each entry is name:token, the name 1-40 letters, digits, ".", "_" or "-", the token 8-200 characters',
          });
          return z.NEVER;
        }
        tokens.push({ name, token });
      }
      if (tokens.length > 50) ctx.addIssue({ code: 'custom', message: 'at most 50 named admin tokens' });
      const names = tokens.map((t) => t.name.toLowerCase());
      if (names.includes('admin') || new Set(names).size !== names.length) {
        ctx.addIssue({
          code: 'custom',
          message: 'names must differ from each other and from "admin" (the ADMIN_TOKEN\'s caller)',
        });
      }
      if (new Set(tokens.map((t) => t.token)).size !== tokens.length)
        ctx.addIssue({ code: 'custom', message: 'two names share a token' });
      return tokens;
    })
    .describe(
      'Named admin tokens beside ADMIN_TOKEN, comma-separated name:token pairs (ops-alice:<token>,ci:<token>): each caller of the admin API is named in the audit. Production refuses tokens under 24 characters',
    ),
  AUDIT_RETENTION: durationMs('400d')
    .pipe(
      z
        .number()
        .min(30 * 86_400_000, 'AUDIT_RETENTION is at least 30d')
        .max(3650 * 86_400_000, 'AUDIT_RETENTION is at most 3650d'),
    )
    .describe(
      'How long the audit of account changes and failed admin attempts is kept (30d..3650d); nothing removes an entry sooner',
    ),
  PROVIDER_WEBHOOK_SECRET: z
    .string()
    .min(8)
    .default('sandbox-webhook-secret')
    .describe('Secret the provider sends in mono-webhook-secret'),
  ALLOW_PRIVATE_WEBHOOK_URLS: booleanSetting(false).describe(
    'Accept http webhook URLs and private or loopback hosts at client registration (local stacks; refused in production)',
  ),
  REPLY_TIMEOUT: durationMs('10s').describe('How long a request waits for the applications service'),
  REPLY_TOPIC_RETENTION: durationMs('1h').describe(
    "How long the broker keeps the records of this replica's reply topic (a reply is read within REPLY_TIMEOUT)",
  ),
  REPLY_TOPIC_GRACE: durationMs('10m').describe(
    'How long a reply topic of another replica may have no live consumer before this replica deletes it (the replica died without a clean shutdown)',
  ),
  REPLY_TOPIC_SWEEP_INTERVAL: durationMs('1m').describe('How often a replica looks for reply topics of dead replicas'),
  RATE_LIMIT_INITIATE: z.coerce
    .number()
    .int()
    .positive()
    .default(20)
    .describe('initiate requests per window per client'),
  RATE_LIMIT_ANALYZE: z.coerce.number().int().positive().default(30).describe('analyze requests per window per client'),
  RATE_LIMIT_GLOBAL: z.coerce.number().int().positive().default(60).describe('Other API requests per window per IP'),
  RATE_LIMIT_WINDOW: durationMs('60s').describe('Length of a rate-limit window'),
  RATE_LIMITS_ENABLED: booleanSetting(true).describe('Set false to lift the limits (benchmarks)'),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v, ctx): false | number | string[] => {
      const text = v.trim();
      if (text === 'false' || text === '0' || text === '') return false;
      if (text === 'true') return 1;
      if (/^\d+$/.test(text)) return Number(text);
      const nets = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (nets.every((n) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(n))) return nets;
      ctx.addIssue({
        code: 'custom',
        message: 'use false, a number of proxy hops, or a comma-separated list of proxy addresses/CIDRs',
      });
      return z.NEVER;
    })
    .describe(
      "Which X-Forwarded-For hops to believe for the client IP: false (none), a hop count (true = 1, the load balancer), or the proxies' addresses/CIDRs. Never every hop: a client could then pick its own IP and a fresh rate-limit bucket",
    ),
  AUTH_FAILURE_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .describe(
      'Presented wrong API keys or admin tokens per client address (an IPv4 address, an IPv6 /64) per AUTH_FAILURE_WINDOW, counted by every replica together; past it a wrong key gets 429, and an admin token 429 before it is compared (a right API key still passes)',
    ),
  AUTH_FAILURE_WINDOW: durationMs('5m').describe('Window of AUTH_FAILURE_LIMIT'),
  API_KEY_CACHE_TTL: durationMs('5s')
    .pipe(z.number().max(5 * 60_000, 'API_KEY_CACHE_TTL is at most 5m'))
    .describe(
      'How long a verified API key is cached in memory (at most 5m; production refuses more than 30s: a rotated key is still taken that long by the other replicas)',
    ),
  NOTIFIER_URL: z
    .string()
    .default('http://127.0.0.1:8104')
    .describe('Internal address of the notifier, for the delivery log API'),
  SCORING_URL: z
    .string()
    .default('http://127.0.0.1:8103')
    .describe("Internal address of scoring's internal port, for the credit policy API"),
  CONSOLE_SESSION_TTL: durationMs('8h')
    .pipe(
      z
        .number()
        .min(60_000, 'CONSOLE_SESSION_TTL is at least 1m')
        .max(7 * 24 * 3_600_000, 'CONSOLE_SESSION_TTL is at most 7d'),
    )
    .describe(
      'How long a console sign-in lasts at most, however active (1m..7d; production refuses more than 12h). Sign-out, a rotation of the API key it signed in with, and for a staff user a change of role or password or the removal end it sooner',
    ),
  CONSOLE_SESSION_IDLE: durationMs('30m')
    .pipe(
      z
        .number()
        .min(10_000, 'CONSOLE_SESSION_IDLE is at least 10s')
        .max(24 * 3_600_000, 'CONSOLE_SESSION_IDLE is at most 24h'),
    )
    .describe(
      'How long a console session lasts without a request (10s..24h, and not beyond CONSOLE_SESSION_TTL; production refuses more than 1h)',
    ),
  INVITATION_TTL: durationMs('72h')
    .pipe(
      z
        .number()
        .min(10 * 60_000, 'INVITATION_TTL is at least 10m')
        .max(7 * 24 * 3_600_000, 'INVITATION_TTL is at most 7d'),
    )
    .describe('How long a staff invitation link can be used (10m..7d); it is good once'),
  DECISION_SIGNING_KEY: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{43}$/, 'DECISION_SIGNING_KEY must be a 32-byte Ed25519 seed, base64url (43 characters)')
        .optional(),
    )
    .describe(
      'Ed25519 seed (32 bytes, base64url) of the key that signs decision records; derived from DATA_KEY when unset (refused in production). Its public key is at /.well-known/jwks.json',
    ),
  DECISION_RECORD_ISSUER: z
    .string()
    .min(1)
    .max(200)
    .default('loan-application-service')
    .describe('The `iss` of decision records: who signed them, as the lender names this service to applicants'),
  CONSOLE_PUBLIC_URL: z
    .url({ error: 'CONSOLE_PUBLIC_URL must be a URL' })
    .optional()
    .describe(
      "The gateway's address as staff reach it (https://console.lender.example), for invitation links; the gateway's own address when unset",
    ),
  TRACE_UI_URL: z
    .preprocess((v) => (v === '' ? undefined : v), z.url({ error: 'TRACE_UI_URL must be a URL' }).optional())
    .describe(
      "A Jaeger UI's address (http://localhost:16686): the console's application page then links to the application's traces",
    ),
  WEBHOOK_SECRET_OVERLAP: durationMs('24h').describe(
    'How long the previous webhook secret keeps signing after a rotation',
  ),
};

/** Durations a production start refuses above: each lets a credential outlive its withdrawal. */
const PRODUCTION_MAXIMA = {
  CONSOLE_SESSION_TTL: { ms: 12 * 3_600_000, text: '12h', why: 'a stolen console cookie would last that long' },
  CONSOLE_SESSION_IDLE: { ms: 3_600_000, text: '1h', why: 'an unattended console would stay signed in that long' },
  API_KEY_CACHE_TTL: {
    ms: 30_000,
    text: '30s',
    why: 'a rotated API key would still be taken that long by other replicas',
  },
} as const;

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
export const loadGatewayConfig = (env: Record<string, string | undefined> = process.env) => {
  const loaded = loadConfig(configShape, env, {
    // A signing key derived from DATA_KEY would change with a DATA_KEY rotation: production names its own.
    secrets: ['ADMIN_TOKEN', 'PROVIDER_WEBHOOK_SECRET', 'INTERNAL_TOKEN', 'DECISION_SIGNING_KEY'],
  });
  // Whether the console's cookies take `__Host-` and `Secure` whatever the request says.
  const config = Object.freeze({ ...loaded, production: env.NODE_ENV === 'production' });
  if (config.CONSOLE_SESSION_IDLE > config.CONSOLE_SESSION_TTL) {
    throw new ConfigError('CONSOLE_SESSION_IDLE must not be longer than CONSOLE_SESSION_TTL');
  }
  if (env.NODE_ENV === 'production') {
    const unsafe: string[] = Object.entries(PRODUCTION_MAXIMA)
      .filter(([name, max]) => config[name as keyof typeof PRODUCTION_MAXIMA] > max.ms)
      .map(([name, max]) => `${name} is above ${max.text} (${max.why})`);
    const builtIn = new Set(['local-admin-token', 'sandbox-webhook-secret', 'change-me', 'changeme']);
    for (const { name, token } of config.ADMIN_TOKENS) {
      if (token.length < PRODUCTION_ADMIN_TOKEN_MIN)
        unsafe.push(
          `the admin token of ${name} (ADMIN_TOKENS) is shorter than ${PRODUCTION_ADMIN_TOKEN_MIN} characters`,
        );
      else if (builtIn.has(token) || token === env.ADMIN_TOKEN)
        unsafe.push(`the admin token of ${name} (ADMIN_TOKENS) is a built-in value or ADMIN_TOKEN itself`);
    }
    if (unsafe.length > 0) throw new ConfigError(`Refusing to start with NODE_ENV=production: ${unsafe.join('; ')}`);
  }
  if (config.HTTP_PORT !== 0 && config.HTTP_PORT === config.GATEWAY_PORT) {
    throw new ConfigError(
      `HTTP_PORT (internal: health and metrics) must differ from GATEWAY_PORT (public API); both are ${config.HTTP_PORT}`,
    );
  }
  return config;
};

/** Every caller of the admin API: the one of ADMIN_TOKEN ("admin") and the named ones. */
export const adminTokensOf = (config: Pick<GatewayConfig, 'ADMIN_TOKEN' | 'ADMIN_TOKENS'>): AdminToken[] => [
  { name: 'admin', token: config.ADMIN_TOKEN },
  ...config.ADMIN_TOKENS,
];
