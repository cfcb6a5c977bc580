import type { Clock } from '@loan/runtime';
import { call, createClient, startGateway, suiteNamespace, type Running } from '@testing/stack';
import { windowClock } from '@testing/helpers';

/**
 * Console sessions across gateway replicas, against the real broker and database: sessions are
 * stored by the gateways, so a session made by one replica is good on another and ending it on
 * one ends it on all; it ends after its idle time and at its absolute end; a key rotation ends
 * the sessions the key opened; dead cookies and failed sign-ins count against the same limit as
 * failed API authentications; sign-in's CSRF check has no alternative spelling; production
 * cookies are `__Host-` and Secure.
 */
const ns = suiteNamespace();
let now = Date.now();
const clock: Clock = { now: () => new Date(now) };
let gateway: Running;
let replica: Running;
let lender: Awaited<ReturnType<typeof createClient>>;
const started: Running[] = [];

beforeAll(async () => {
  gateway = await startGateway(ns, { CONSOLE_SESSION_TTL: '1h', CONSOLE_SESSION_IDLE: '10m' }, clock);
  replica = await startGateway(ns);
  lender = await createClient(gateway.url);
});

afterAll(async () => {
  for (const one of started) await one.stop();
  await replica?.stop();
  await gateway?.stop();
});

const minutes = (n: number) => n * 60_000;

/** A gateway of its own (its own database), whose failed-authentication count starts at zero. */
async function throttledGateway() {
  // Its failed authentications are counted from the start of a 5-minute window (the default).
  const own = await startGateway(suiteNamespace(), { AUTH_FAILURE_LIMIT: '3' }, windowClock(5 * 60_000));
  started.push(own);
  return own;
}

async function signIn(url: string, apiKey: string, cookieName = 'console_session') {
  const first = await fetch(`${url}/console/session`);
  // An address over the failed-authentication limit is turned away at once, even here.
  if (first.status !== 200) return { status: first.status, cookie: '', csrfToken: '', setCookie: '' };
  const { csrfToken } = (await first.json()) as { csrfToken: string };
  const signInCookie = first.headers.getSetCookie()[0]!.split(';')[0]!;
  const res = await fetch(`${url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url, 'x-csrf-token': csrfToken, cookie: signInCookie },
    body: JSON.stringify({ apiKey }),
  });
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${cookieName}=`)) ?? '';
  const body = (await res.json()) as { csrfToken?: string };
  return { status: res.status, cookie: setCookie.split(';')[0]!, csrfToken: body.csrfToken ?? '', setCookie };
}

const accountOf = (url: string, cookie: string) => fetch(`${url}/console/api/client`, { headers: { cookie } });

it('when a replica made the session, then another replica takes it, and the session ends at its absolute end however active', async () => {
  const { status, cookie } = await signIn(gateway.url, lender.apiKey);
  expect(status).toBe(200);
  const elsewhere = await accountOf(replica.url, cookie);
  expect(elsewhere.status).toBe(200);
  expect(((await elsewhere.json()) as { clientId: string }).clientId).toBe(lender.clientId);

  // Used every 9 minutes: the idle time (10m) never passes, the hour does.
  for (let step = 1; step <= 6; step++) {
    now += minutes(9);
    expect((await accountOf(gateway.url, cookie)).status).toBe(200);
  }
  now += minutes(7);
  const expired = await accountOf(gateway.url, cookie);
  expect(expired.status).toBe(401);
});

it('when a session is not used for its idle time, then it ends on every replica', async () => {
  const { cookie } = await signIn(gateway.url, lender.apiKey);
  now += minutes(9);
  expect((await accountOf(gateway.url, cookie)).status).toBe(200);
  now += minutes(9);
  expect((await accountOf(gateway.url, cookie)).status).toBe(200);
  now += minutes(10);
  expect((await accountOf(gateway.url, cookie)).status).toBe(401);
  // The replica's own clock is behind the test's; a session idle on the record is still refused
  // there once its idle time has passed by that clock too.
  const state = await fetch(`${gateway.url}/console/session`, { headers: { cookie } });
  expect(state.status).toBe(401);
  expect(state.headers.getSetCookie().join(';')).toMatch(/console_session=;/);
});

it('when a lender signs out, then a copy of the cookie stops working on every replica', async () => {
  const { cookie, csrfToken } = await signIn(gateway.url, lender.apiKey);
  expect((await accountOf(replica.url, cookie)).status).toBe(200);
  const out = await fetch(`${replica.url}/console/session`, {
    method: 'DELETE',
    headers: { cookie, origin: replica.url, 'x-csrf-token': csrfToken },
  });
  expect(out.status).toBe(204);
  expect((await accountOf(gateway.url, cookie)).status).toBe(401);
  expect((await accountOf(replica.url, cookie)).status).toBe(401);
});

it('when the API key is rotated, then every console session it opened ends on every replica, but the console session that rotated it', async () => {
  const own = await createClient(gateway.url);
  const first = await signIn(gateway.url, own.apiKey);
  const second = await signIn(replica.url, own.apiKey);
  const rotating = await signIn(gateway.url, own.apiKey);
  const byConsole = await fetch(`${gateway.url}/console/api/client/rotate-key`, {
    method: 'POST',
    headers: { cookie: rotating.cookie, origin: gateway.url, 'x-csrf-token': rotating.csrfToken },
  });
  expect(byConsole.status).toBe(200);
  const { apiKey } = (await byConsole.json()) as { apiKey: string };
  for (const url of [gateway.url, replica.url]) {
    expect((await accountOf(url, first.cookie)).status).toBe(401);
    expect((await accountOf(url, second.cookie)).status).toBe(401);
    expect((await accountOf(url, rotating.cookie)).status).toBe(200);
  }
  // Through the API, with the key: the console session that signed in with the key ends too.
  const again = await signIn(replica.url, apiKey);
  expect((await call(gateway.url, apiKey, 'POST', '/api/client/rotate-key')).status).toBe(200);
  expect((await accountOf(replica.url, again.cookie)).status).toBe(401);
  expect((await accountOf(gateway.url, rotating.cookie)).status).toBe(401);
});

it('when sign-in is asked at another spelling of its path, then it is not signed in without the sign-in token', async () => {
  for (const path of ['/console/session/', '/console/Session', '/console/SESSION/', '/Console/session/']) {
    const res = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: gateway.url },
      body: JSON.stringify({ apiKey: lender.apiKey }),
    });
    expect([403, 404, 405]).toContain(res.status);
    expect(res.headers.getSetCookie().join(';')).not.toMatch(/console_session=[^;]/);
    expect(await res.json()).toEqual({
      statusCode: res.status,
      message: expect.any(String),
      error: expect.any(String),
    });
  }
});

it('when sign-ins keep failing from an address, then wrong keys get 429 at sign-in and on the API alike, and a right key still passes', async () => {
  const own = await throttledGateway();
  const its = await createClient(own.url);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await signIn(own.url, `lk_wrong_${i}`)).status);
  expect(statuses).toEqual([401, 401, 401, 429]);
  const api = await call(own.url, 'lk_wrong_again', 'GET', '/api/client');
  expect(api.status).toBe(429);
  expect(api.body).toEqual({ statusCode: 429, message: expect.any(String), error: 'Too Many Requests' });
  const signedIn = await signIn(own.url, its.apiKey);
  expect(signedIn.status).toBe(200);
  expect(signedIn.cookie).not.toBe('');
  expect((await call(own.url, its.apiKey, 'GET', '/api/client')).status).toBe(200);
});

it('when cookies are tried at GET /console/session, then each dead one is a failed authentication and the address is soon refused', async () => {
  const probe = await throttledGateway();
  for (const guess of ['A'.repeat(43), 'B'.repeat(43), 'not-even-a-token']) {
    const res = await fetch(`${probe.url}/console/session`, { headers: { cookie: `console_session=${guess}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ statusCode: 401, message: expect.any(String), error: 'Unauthorized' });
  }
  const next = await fetch(`${probe.url}/console/session`, {
    headers: { cookie: `console_session=${'C'.repeat(43)}` },
  });
  expect(next.status).toBe(429);
});

it('when the gateway runs in production, then the console cookies are __Host- and Secure, for the whole host, even over plain http', async () => {
  const production = await startGateway(ns, {
    NODE_ENV: 'production',
    DATA_KEY: 'a-production-data-key-of-our-own-1234',
    ADMIN_TOKEN: 'an-admin-token-of-our-own',
    PROVIDER_WEBHOOK_SECRET: 'a-webhook-secret-of-our-own',
    INTERNAL_TOKEN: 'an-internal-token-of-our-own',
    DECISION_SIGNING_KEY: 'n8bN2vQm0F3yXk7P1sJc4Lw9Zt6Hd5Ra2Ue8Yo0Ig3M',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'false',
  });
  started.push(production);
  const first = await fetch(`${production.url}/console/session`);
  const signInCookie = first.headers.getSetCookie()[0]!;
  expect(signInCookie).toMatch(/^__Host-console_signin=/);
  const signedIn = await signIn(production.url, lender.apiKey, '__Host-console_session');
  expect(signedIn.status).toBe(200);
  const flags = signedIn.setCookie.split(';').map((part) => part.trim().toLowerCase());
  expect(flags).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=strict', 'path=/']));
  expect(flags.some((f) => f.startsWith('domain='))).toBe(false);
  expect((await accountOf(production.url, signedIn.cookie)).status).toBe(200);
  // The unprefixed name opens nothing there.
  expect((await accountOf(production.url, signedIn.cookie.replace('__Host-', ''))).status).toBe(401);
});
