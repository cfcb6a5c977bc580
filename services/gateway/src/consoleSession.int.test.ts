import type { Clock } from '@loan/runtime';
import { call, createClient, startGateway, suiteNamespace, type Running } from '../../../testing/stack';

/**
 * Console sessions across gateway replicas, against the real broker and database: a session
 * made by one replica is good on another (nothing is stored), it ends at its expiry, and failed
 * sign-ins count against the same limit as failed API authentications.
 */
const ns = suiteNamespace();
let now = Date.now();
const clock: Clock = { now: () => new Date(now) };
let gateway: Running;
let replica: Running;
let lender: Awaited<ReturnType<typeof createClient>>;

beforeAll(async () => {
  gateway = await startGateway(ns, { AUTH_FAILURE_LIMIT: '3', CONSOLE_SESSION_TTL: '1h' }, clock);
  replica = await startGateway(ns, { AUTH_FAILURE_LIMIT: '3' });
  lender = await createClient(gateway.url);
});

afterAll(async () => {
  await replica?.stop();
  await gateway?.stop();
});

async function signIn(url: string, apiKey: string) {
  const first = await fetch(`${url}/console/session`);
  // An address over the failed-authentication limit is turned away at once, even here.
  if (first.status !== 200) return { status: first.status, cookie: '' };
  const { csrfToken } = (await first.json()) as { csrfToken: string };
  const signInCookie = first.headers.getSetCookie()[0]!.split(';')[0]!;
  const res = await fetch(`${url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url, 'x-csrf-token': csrfToken, cookie: signInCookie },
    body: JSON.stringify({ apiKey }),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('console_session='));
  return { status: res.status, cookie: session ? session.split(';')[0]! : '' };
}

const accountOf = (url: string, cookie: string) => fetch(`${url}/console/api/client`, { headers: { cookie } });

it('when a replica made the session, then another replica takes it, and the session ends at its expiry', async () => {
  const { status, cookie } = await signIn(gateway.url, lender.apiKey);
  expect(status).toBe(200);
  const elsewhere = await accountOf(replica.url, cookie);
  expect(elsewhere.status).toBe(200);
  expect(((await elsewhere.json()) as { clientId: string }).clientId).toBe(lender.clientId);

  now += 60 * 60_000 + 1000;
  const expired = await accountOf(gateway.url, cookie);
  expect(expired.status).toBe(401);
  const state = await fetch(`${gateway.url}/console/session`, { headers: { cookie } });
  expect(((await state.json()) as { signedIn: boolean }).signedIn).toBe(false);
});

it('when sign-ins keep failing from an address, then it gets 429 at sign-in and on the API alike', async () => {
  // On the replica, where no authentication has failed yet (the counter is per replica).
  for (let i = 0; i < 3; i++) expect((await signIn(replica.url, `lk_wrong_${i}`)).status).toBe(401);
  const refused = await signIn(replica.url, lender.apiKey);
  expect(refused.status).toBe(429);
  expect(refused.cookie).toBe('');
  const api = await call(replica.url, lender.apiKey, 'GET', '/api/client');
  expect(api.status).toBe(429);
  expect(api.body).toEqual({ statusCode: 429, message: expect.any(String), error: 'Too Many Requests' });
});
