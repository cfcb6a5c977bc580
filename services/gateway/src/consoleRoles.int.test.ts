import { StaffRoles, type StaffRole } from '@loan/contracts';
import {
  call,
  captureLogs,
  createClient,
  startGateway,
  suiteNamespace,
  type Running,
  consoleBrowser,
} from '@testing/stack';
import { windowClock } from '@testing/helpers';
import { servedRoutes } from './entry-points/http/support';

/**
 * Roles on the console's API, against the real database: each role signs in with its password
 * and every kind of call answers what the role allows, 403 naming the role otherwise, before
 * the call's own checks (so an allowed role meets those: 400, 415). The API key keeps full access
 * on /api, and each change from the console writes an audit line naming the user.
 */
const ns = suiteNamespace();
let gateway: Running & { app: unknown };
let logs: ReturnType<typeof captureLogs>;
let lender: Awaited<ReturnType<typeof createClient>>;
const pages = new Map<StaffRole, ReturnType<typeof browser>>();

beforeAll(async () => {
  logs = captureLogs();
  gateway = await startGateway(ns, { AUTH_FAILURE_LIMIT: '200', RATE_LIMIT_GLOBAL: '1000', LOG_LEVEL: 'info' });
  lender = await createClient(gateway.url);
  const owner = await fetch(`${gateway.url}/admin/clients/${lender.clientId}/owner`, {
    method: 'POST',
    headers: { 'x-admin-token': 'local-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@roles.example' }),
  });
  const invitations: [StaffRole, string][] = [
    ['owner', ((await owner.json()) as { invitationUrl: string }).invitationUrl],
  ];
  for (const role of StaffRoles.filter((r) => r !== 'owner')) {
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', {
      email: `${role}@roles.example`,
      role,
    });
    invitations.push([role, invited.body.invitationUrl]);
  }
  for (const [role, url] of invitations) {
    const page = browser();
    await page.send('GET', '/console/session');
    const accepted = await page.send('POST', '/console/invitation/accept', {
      token: url.split('#/invitation/')[1],
      password: `${role} password 1234`,
    });
    expect(accepted.status).toBe(200);
    const signedIn = await page.send('POST', '/console/session', {
      email: `${role}@roles.example`,
      password: `${role} password 1234`,
    });
    expect(signedIn.status).toBe(200);
    pages.set(role, page);
  }
});

afterAll(async () => {
  await gateway?.stop();
});

const browser = (url?: string) => consoleBrowser(() => url ?? gateway.url);

/** Calls that each role may or may not make; an allowed call meets its own checks (400, 415) instead of 403. */
const calls: {
  what: string;
  allowed: StaffRole[];
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  expect: number;
}[] = [
  {
    what: 'list applications',
    allowed: [...StaffRoles],
    method: 'GET',
    path: '/console/api/applications?status=NOPE',
    expect: 400,
  },
  { what: 'read the account', allowed: [...StaffRoles], method: 'GET', path: '/console/api/client', expect: 200 },
  {
    what: 'open an application',
    allowed: ['owner', 'credit_officer', 'credit_manager'],
    method: 'POST',
    path: '/console/api/applications/initiate',
    body: { amount: -1 },
    expect: 400,
  },
  {
    what: 'analyze an application',
    allowed: ['owner', 'credit_officer', 'credit_manager'],
    method: 'POST',
    path: '/console/api/applications/x/analyze',
    body: 'x',
    contentType: 'text/plain',
    expect: 404,
  },
  {
    what: 'change the webhook URL',
    allowed: ['owner', 'developer'],
    method: 'PATCH',
    path: '/console/api/client',
    body: { webhookUrl: 'not a url' },
    expect: 400,
  },
  {
    what: 'rotate the API key',
    allowed: ['owner', 'developer'],
    method: 'POST',
    path: '/console/api/client/rotate-webhook-secret',
    body: { overlapSeconds: -1 },
    expect: 400,
  },
  {
    what: 'replay deliveries',
    allowed: ['owner', 'developer'],
    method: 'POST',
    path: '/console/api/webhooks/deliveries/replay',
    body: 'x',
    contentType: 'text/plain',
    expect: 415,
  },
  { what: 'list users', allowed: ['owner'], method: 'GET', path: '/console/api/users', expect: 200 },
  {
    what: 'invite a user',
    allowed: ['owner'],
    method: 'POST',
    path: '/console/api/users',
    body: { email: 'nobody' },
    expect: 400,
  },
  {
    what: 'change a role',
    allowed: ['owner'],
    method: 'PATCH',
    path: '/console/api/users/00000000-0000-4000-8000-000000000000',
    body: { role: 'owner' },
    expect: 404,
  },
];

describe.each(StaffRoles)('the %s', (role) => {
  it.each(calls.map((c) => [c.what, c] as const))(
    'when it tries to %s, then it is let through only if its role allows it',
    async (_what, c) => {
      const res = await pages.get(role)!.send(c.method, c.path, c.body, c.contentType);
      if (c.allowed.includes(role)) {
        expect(res.status).toBe(c.expect);
      } else {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          statusCode: 403,
          message: `Your role (${role}) does not allow this`,
          error: 'Forbidden',
        });
      }
    },
  );
});

it('when a viewer tries every change the console\u2019s API serves (read from the app\u2019s own routers), then each is refused with 403 naming the role', async () => {
  const changes = servedRoutes((gateway.app as { router: { stack: unknown[] } }).router.stack).filter(
    (r) => r.path.startsWith('/console/api/') && !['get', 'head'].includes(r.method),
  );
  // Applications, reviews, policies, the account, webhooks and users at least: a router left out would show here.
  for (const prefix of [
    '/console/api/applications',
    '/console/api/policies',
    '/console/api/client',
    '/console/api/webhooks',
    '/console/api/users',
  ]) {
    expect(changes.some((r) => r.path.startsWith(prefix))).toBe(true);
  }
  expect(changes.map((r) => `${r.method} ${r.path}`)).toEqual(
    expect.arrayContaining([
      'post /console/api/applications/{id}/review',
      'post /console/api/applications/{id}/review/confirm',
    ]),
  );
  const viewer = pages.get('viewer')!;
  const answers: string[] = [];
  for (const r of changes) {
    const path = r.path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000');
    const res = await viewer.send(r.method.toUpperCase(), path, {});
    answers.push(`${r.method} ${r.path} ${res.status} ${res.body?.message}`);
  }
  expect(answers).toEqual(changes.map((r) => `${r.method} ${r.path} 403 Your role (viewer) does not allow this`));
});

it('when a viewer is refused more changes than the failed-authentication limit, then none counts as a failed authentication, nor does a change without a cookie; a forged cookie does', async () => {
  const strict = await startGateway(suiteNamespace(), { AUTH_FAILURE_LIMIT: '3' }, windowClock(5 * 60_000));
  try {
    const own = await createClient(strict.url);
    const invited = await call(strict.url, own.apiKey, 'POST', '/api/users', {
      email: 'viewer@limit.example',
      role: 'viewer',
    });
    const viewer = browser(strict.url);
    await viewer.send('GET', '/console/session');
    const password = 'viewer password 1234';
    expect(
      (
        await viewer.send('POST', '/console/invitation/accept', {
          token: invited.body.invitationUrl.split('#/invitation/')[1],
          password,
        })
      ).status,
    ).toBe(200);
    expect((await viewer.send('POST', '/console/session', { email: 'viewer@limit.example', password })).status).toBe(
      200,
    );
    const refused = [];
    for (let i = 0; i < 5; i++)
      refused.push((await viewer.send('PATCH', '/console/api/client', { webhookUrl: null })).status);
    expect(refused).toEqual([403, 403, 403, 403, 403]);
    expect((await viewer.send('GET', '/console/api/client')).status).toBe(200);
    // A change without any cookie guesses nothing: 401, never counted.
    const bare = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${strict.url}/console/api/client`, {
        method: 'PATCH',
        headers: { origin: strict.url, 'content-type': 'application/json' },
        body: '{}',
      });
      bare.push(res.status);
    }
    expect(bare).toEqual([401, 401, 401, 401]);
    // A forged cookie is a presented wrong credential: three, then 429.
    const forged = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${strict.url}/console/api/client`, {
        method: 'PATCH',
        headers: {
          origin: strict.url,
          'content-type': 'application/json',
          cookie: `console_session=${String(i).repeat(43)}`,
        },
        body: '{}',
      });
      forged.push(res.status);
    }
    expect(forged).toEqual([401, 401, 401, 429]);
  } finally {
    await strict.stop();
  }
});

it('when the API key makes the same calls on /api, then none is refused for a role', async () => {
  for (const c of calls) {
    const res = await call(gateway.url, lender.apiKey, c.method, c.path.replace('/console/api', '/api'), c.body);
    expect([c.what, res.status]).not.toEqual([c.what, 403]);
  }
});

it('when a user changes something from the console, then the audit line names the user and the role', async () => {
  const before = logs.lines().length;
  const developer = pages.get('developer')!;
  const changed = await developer.send('PATCH', '/console/api/client', { webhookUrl: 'https://lender.example/hooks' });
  expect(changed.status).toBe(200);
  const me = await developer.send('GET', '/console/session');
  const lines = logs
    .lines()
    .slice(before)
    .filter((line) => line.includes('"audit"'))
    .map((line) => JSON.parse(line) as { audit: Record<string, unknown> });
  expect(lines.map((l) => l.audit)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ action: 'client.update', userId: me.body.user.userId, clientId: lender.clientId }),
      expect.objectContaining({
        action: 'console PATCH /console/api/client',
        userId: me.body.user.userId,
        role: 'developer',
      }),
    ]),
  );
});
