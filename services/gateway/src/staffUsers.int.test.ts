import type { Clock } from '@loan/runtime';
import { generateSync } from 'otplib';
import { call, createClient, startGateway, suiteNamespace, type Running, consoleBrowser } from '@testing/stack';
import { windowClock } from '@testing/helpers';

/**
 * A lender's staff against the real broker and database: the operator invites the first owner,
 * who accepts with a password and an authenticator, signs in, and invites the others; roles are
 * changed and users removed with the API key or from the console by an owner, each ending that
 * user's sessions; sign-in failures make an account wait, never for good; and no lender sees or
 * touches another's users.
 */
const ns = suiteNamespace();
let now = Date.now();
const clock: Clock = { now: () => new Date(now) };
let gateway: Running;
let lender: Awaited<ReturnType<typeof createClient>>;
let other: Awaited<ReturnType<typeof createClient>>;
const ADMIN = { 'x-admin-token': 'local-admin-token', 'content-type': 'application/json' };
const unique = (name: string) => `${name}.${Math.random().toString(36).slice(2, 8)}@acme.example`;

beforeAll(async () => {
  gateway = await startGateway(
    ns,
    { AUTH_FAILURE_LIMIT: '200', RATE_LIMIT_GLOBAL: '1000', INVITATION_TTL: '1h' },
    clock,
  );
  lender = await createClient(gateway.url);
  other = await createClient(gateway.url);
});

afterAll(async () => {
  await gateway?.stop();
});

/** A browser of the console: its cookies and the CSRF token of the page. */
const browser = (url?: string) => consoleBrowser(() => url ?? gateway.url);

const codeAt = (secret: string, ms = now) => generateSync({ secret, epoch: Math.floor(ms / 1000) });
const tokenOf = (invitationUrl: string) => invitationUrl.split('#/invitation/')[1]!;

/** Accepts an invitation in a fresh browser; with `totp`, enrols the authenticator. */
async function accept(invitationUrl: string, password: string, totp = true) {
  const page = browser();
  await page.open();
  const shown = await page.send('POST', '/console/invitation', { token: tokenOf(invitationUrl) });
  if (shown.status !== 200) return { status: shown.status, body: shown.body, secret: '' };
  const secret = shown.body.totpSecret as string;
  const accepted = await page.send('POST', '/console/invitation/accept', {
    token: tokenOf(invitationUrl),
    password,
    ...(totp ? { totpCode: codeAt(secret) } : {}),
  });
  return { status: accepted.status, body: accepted.body, secret };
}

async function signIn(email: string, password: string, totpCode?: string) {
  const page = browser();
  await page.open();
  const res = await page.send('POST', '/console/session', { email, password, ...(totpCode ? { totpCode } : {}) });
  return { ...res, page };
}

/** An owner of the lender, signed in with password and authenticator. */
let owner: { email: string; password: string; secret: string; userId: string; page: ReturnType<typeof browser> };

describe('the first owner', () => {
  it("when the operator invites a lender's first owner, then the answer carries a one-time link, and a second owner is refused", async () => {
    const email = unique('owner');
    const res = await fetch(`${gateway.url}/admin/clients/${lender.clientId}/owner`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ email }),
    });
    expect(res.status).toBe(201);
    const invitation = (await res.json()) as { userId: string; role: string; status: string; invitationUrl: string };
    expect(invitation).toEqual(
      expect.objectContaining({ email, role: 'owner', status: 'invited', totpEnabled: false }),
    );
    expect(invitation.invitationUrl).toMatch(/\/console#\/invitation\/[\w-]{43}$/);

    const again = await fetch(`${gateway.url}/admin/clients/${lender.clientId}/owner`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ email: unique('second') }),
    });
    expect(again.status).toBe(409);
    const unknown = await fetch(`${gateway.url}/admin/clients/00000000-0000-4000-8000-000000000000/owner`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ email }),
    });
    expect(unknown.status).toBe(404);
    const bad = await fetch(`${gateway.url}/admin/clients/${other.clientId}/owner`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ email: 'not-an-address' }),
    });
    expect(bad.status).toBe(400);
    const noToken = await fetch(`${gateway.url}/admin/clients/${other.clientId}/owner`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect(noToken.status).toBe(401);

    // The owner opens the link, sets a password and enrols the authenticator; the link is then spent.
    const password = 'a long enough owner password';
    const { status, body, secret } = await accept(invitation.invitationUrl, password);
    expect(status).toBe(200);
    expect(body).toEqual(expect.objectContaining({ status: 'active', totpEnabled: true, role: 'owner' }));
    const reused = await accept(invitation.invitationUrl, password);
    expect(reused.status).toBe(404);

    now += 31_000; // the next TOTP step: the enrolment's code is not good twice
    const signedIn = await signIn(email, password, codeAt(secret));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toEqual({ userId: invitation.userId, email, role: 'owner' });
    owner = { email, password, secret, userId: invitation.userId, page: signedIn.page };
  });

  it('when the lender has an owner, then its API key no longer opens the console', async () => {
    const page = browser();
    await page.open();
    const res = await page.send('POST', '/console/session', { apiKey: lender.apiKey });
    expect(res.status).toBe(403);
    expect(page.cookie()).toBe('');
  });

  it("when a password is too short at acceptance, or the code is not the secret's, then the invitation is refused and stays open", async () => {
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', {
      email: unique('short'),
      role: 'viewer',
    });
    expect(invited.status).toBe(201);
    const page = browser();
    await page.open();
    const token = tokenOf(invited.body.invitationUrl);
    expect((await page.send('POST', '/console/invitation/accept', { token, password: 'short' })).status).toBe(400);
    expect(
      (
        await page.send('POST', '/console/invitation/accept', {
          token,
          password: 'long enough password',
          totpCode: '000000',
        })
      ).status,
    ).toBe(400);
    expect((await page.send('POST', '/console/invitation', { token })).status).toBe(200);
    // Without the sign-in token the invitation is not even shown.
    const forged = await fetch(`${gateway.url}/console/invitation`, {
      method: 'POST',
      headers: { origin: gateway.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(forged.status).toBe(403);
  });

  it('when an invitation has lapsed, then it opens nothing', async () => {
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', {
      email: unique('late'),
      role: 'viewer',
    });
    now += 60 * 60_000 + 1000;
    expect((await accept(invited.body.invitationUrl, 'a long enough password', false)).status).toBe(404);
    // The owner's session has idled out meanwhile: sign in again.
    owner.page = (await signIn(owner.email, owner.password, codeAt(owner.secret))).page;
  });
});

describe('users with the API key and from the console', () => {
  it("when the owner invites from the console, then the invitee signs in with a password and gets the role's access", async () => {
    const email = unique('officer');
    const invited = await owner.page.send('POST', '/console/api/users', { email, role: 'credit_officer' });
    expect(invited.status).toBe(201);
    expect((await accept(invited.body.invitationUrl, 'officer password 123', false)).status).toBe(200);
    const officer = await signIn(email, 'officer password 123');
    expect(officer.status).toBe(200);
    expect(officer.body.user.role).toBe('credit_officer');
    // Users are the owner's business.
    expect((await officer.page.send('GET', '/console/api/users')).status).toBe(403);
    expect((await officer.page.send('POST', '/console/api/users', { email: unique('x'), role: 'owner' })).status).toBe(
      403,
    );

    const list = await owner.page.send('GET', '/console/api/users');
    expect(list.status).toBe(200);
    expect(list.body.items.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining([owner.email, email]),
    );
    expect(JSON.stringify(list.body)).not.toMatch(/password|totpSecret|tokenHash/);
  });

  it("when a user's role is changed or the user removed, then that user's sessions end", async () => {
    const email = unique('dev');
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', { email, role: 'developer' });
    expect(invited.status).toBe(201);
    await accept(invited.body.invitationUrl, 'developer password 1', false);
    const dev = await signIn(email, 'developer password 1');
    expect((await dev.page.send('GET', '/console/api/client')).status).toBe(200);

    const changed = await call(gateway.url, lender.apiKey, 'PATCH', `/api/users/${invited.body.userId}`, {
      role: 'viewer',
    });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toBe('viewer');
    expect((await dev.page.send('GET', '/console/api/client')).status).toBe(401);

    const again = await signIn(email, 'developer password 1');
    expect(again.body.user.role).toBe('viewer');
    const removed = await owner.page.send('DELETE', `/console/api/users/${invited.body.userId}`);
    expect(removed.status).toBe(204);
    expect((await again.page.send('GET', '/console/api/client')).status).toBe(401);
    expect((await signIn(email, 'developer password 1')).status).toBe(401);
  });

  it("when a user changes the password, then the user's other sessions end and this one goes on", async () => {
    const email = unique('manager');
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', { email, role: 'credit_manager' });
    await accept(invited.body.invitationUrl, 'manager password 1', false);
    const here = await signIn(email, 'manager password 1');
    const there = await signIn(email, 'manager password 1');
    expect(
      (
        await here.page.send('POST', '/console/password', {
          currentPassword: 'wrong password 11',
          newPassword: 'manager password 2',
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await here.page.send('POST', '/console/password', {
          currentPassword: 'manager password 1',
          newPassword: 'manager password 2',
        })
      ).status,
    ).toBe(204);
    expect((await there.page.send('GET', '/console/api/client')).status).toBe(401);
    expect((await here.page.send('GET', '/console/api/client')).status).toBe(200);
    expect((await signIn(email, 'manager password 1')).status).toBe(401);
    expect((await signIn(email, 'manager password 2')).status).toBe(200);
  });

  it("when a user sets up a new authenticator, then after the current password and a code of the new secret only the new one signs in and the other sessions end; a wrong password, code or enrolment, a lapsed one or another user's is refused", async () => {
    const email = unique('officer');
    const password = 'officer password 1';
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', { email, role: 'credit_officer' });
    const { secret: old } = await accept(invited.body.invitationUrl, password);
    now += 31_000;
    const here = await signIn(email, password, codeAt(old));
    expect(here.status).toBe(200);
    now += 31_000;
    const there = await signIn(email, password, codeAt(old));
    expect(there.status).toBe(200);

    const wrong = await here.page.send('POST', '/console/totp', { currentPassword: 'not the password' });
    expect([wrong.status, wrong.body?.message]).toEqual([403, 'The current password is wrong']);
    const started = await here.page.send('POST', '/console/totp', { currentPassword: password });
    expect(started.status).toBe(200);
    const { totpSecret, otpauthUri, enrolment } = started.body as {
      totpSecret: string;
      otpauthUri: string;
      enrolment: string;
    };
    expect(totpSecret).not.toBe(old);
    expect(otpauthUri).toContain(`secret=${totpSecret}`);
    // Nothing changes until a code of the new secret comes: the old authenticator still signs in.
    now += 31_000;
    expect((await signIn(email, password, codeAt(old))).status).toBe(200);

    const theirs = await owner.page.send('POST', '/console/totp/confirm', { enrolment, totpCode: codeAt(totpSecret) });
    const refused: [string, { status: number; body: { message?: string } | null }][] = [
      ['a wrong code', await here.page.send('POST', '/console/totp/confirm', { enrolment, totpCode: '000000' })],
      [
        'a forged enrolment',
        await here.page.send('POST', '/console/totp/confirm', { enrolment: 'forged', totpCode: codeAt(totpSecret) }),
      ],
      ["another user's enrolment", theirs],
      ['no code', await here.page.send('POST', '/console/totp/confirm', { enrolment })],
    ];
    for (const [what, res] of refused) expect([what, res.status]).toEqual([what, 400]);
    expect(refused.map(([, res]) => res.body?.message)).toEqual([
      'totpCode is not the current code of the new secret; check the device clock and retry',
      'enrolment is not valid; start the new authenticator again',
      'enrolment is not valid; start the new authenticator again',
      'totpCode is required',
    ]);

    expect(
      (await here.page.send('POST', '/console/totp/confirm', { enrolment, totpCode: codeAt(totpSecret) })).status,
    ).toBe(204);
    expect((await there.page.send('GET', '/console/api/client')).status).toBe(401);
    expect((await here.page.send('GET', '/console/api/client')).status).toBe(200);
    now += 31_000;
    expect((await signIn(email, password, codeAt(old))).status).toBe(401);
    expect((await signIn(email, password, codeAt(totpSecret))).status).toBe(200);

    // An enrolment is good for ten minutes.
    const late = await here.page.send('POST', '/console/totp', { currentPassword: password });
    now += 11 * 60_000;
    const lapsed = await here.page.send('POST', '/console/totp/confirm', {
      enrolment: late.body.enrolment,
      totpCode: codeAt(late.body.totpSecret),
    });
    expect([lapsed.status, lapsed.body?.message]).toEqual([
      400,
      'enrolment has lapsed; start the new authenticator again',
    ]);
  });

  it("when a request names a user wrongly, then it gets 400, 404 or 409 in the error shape, and never another lender's user", async () => {
    const othersUser = await call(gateway.url, other.apiKey, 'POST', '/api/users', {
      email: unique('theirs'),
      role: 'viewer',
    });
    expect(othersUser.status).toBe(201);
    const cases: [string, string, unknown, number][] = [
      ['PATCH', `/api/users/${othersUser.body.userId}`, { role: 'owner' }, 404],
      ['DELETE', `/api/users/${othersUser.body.userId}`, undefined, 404],
      ['PATCH', '/api/users/not-a-user', { role: 'viewer' }, 404],
      ['DELETE', '/api/users/00000000-0000-4000-8000-000000000000', undefined, 404],
      ['PATCH', `/api/users/${owner.userId}`, { role: 'chief' }, 400],
      ['PATCH', `/api/users/${owner.userId}`, { role: 'viewer', email: 'x@y.example' }, 400],
      ['POST', '/api/users', { email: 'nobody', role: 'viewer' }, 400],
      ['POST', '/api/users', { email: owner.email.toUpperCase(), role: 'viewer' }, 409],
      ['PATCH', `/api/users/${owner.userId}`, { role: 'viewer' }, 409],
      ['DELETE', `/api/users/${owner.userId}`, undefined, 409],
      ['PATCH', '/api/users/settings', { requireTotp: 'yes' }, 400],
    ];
    for (const [method, path, body, status] of cases) {
      const res = await call(gateway.url, lender.apiKey, method, path, body);
      expect([method, path, res.status]).toEqual([method, path, status]);
      expect(res.body).toEqual({ statusCode: status, message: expect.any(String), error: expect.any(String) });
    }
    expect((await call(gateway.url, null, 'GET', '/api/users')).status).toBe(401);
    const theirs = await call(gateway.url, other.apiKey, 'GET', '/api/users');
    expect(theirs.body.items.map((u: { userId: string }) => u.userId)).toEqual([othersUser.body.userId]);
    // The other lender's user is untouched.
    expect((await call(gateway.url, other.apiKey, 'GET', '/api/users')).body.items[0].role).toBe('viewer');
  });
});

describe('sign-in', () => {
  it("when the owner's authenticator code is missing, wrong or used before, then the right password alone does not sign in", async () => {
    expect((await signIn(owner.email, owner.password)).status).toBe(401);
    expect((await signIn(owner.email, owner.password, '123456')).status).toBe(401);
    now += 31_000;
    const code = codeAt(owner.secret);
    expect((await signIn(owner.email, owner.password, code)).status).toBe(200);
    expect((await signIn(owner.email, owner.password, code)).status).toBe(401);
    expect((await signIn('nobody@acme.example', owner.password, code)).status).toBe(401);
  });

  it('when sign-ins of an account keep failing, then it waits before the next is checked, and the right password works once the wait is over', async () => {
    const email = unique('viewer');
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', { email, role: 'viewer' });
    await accept(invited.body.invitationUrl, 'viewer password 12', false);
    for (let i = 0; i < 5; i++) expect((await signIn(email, `wrong password ${i}0`)).status).toBe(401);
    const waiting = await signIn(email, 'viewer password 12');
    expect(waiting.status).toBe(429);
    now += 31_000;
    expect((await signIn(email, 'viewer password 12')).status).toBe(200);
    // A success starts the count again.
    expect((await signIn(email, 'wrong password 99')).status).toBe(401);
    expect((await signIn(email, 'viewer password 12')).status).toBe(200);
  });

  it('when sign-ins keep failing from one address, then the address is turned away before the account would wait', async () => {
    const own = await startGateway(suiteNamespace(), { AUTH_FAILURE_LIMIT: '3' }, windowClock(5 * 60_000));
    try {
      const its = await createClient(own.url);
      const email = unique('addressed');
      const res = await fetch(`${own.url}/admin/clients/${its.clientId}/owner`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ email }),
      });
      const { invitationUrl } = (await res.json()) as { invitationUrl: string };
      const page = browser(own.url);
      await page.open();
      const token = invitationUrl.split('#/invitation/')[1];
      expect(
        (await page.send('POST', '/console/invitation/accept', { token, password: 'owner password 1234' })).status,
      ).toBe(200);
      for (let i = 0; i < 3; i++)
        expect((await page.send('POST', '/console/session', { email, password: `wrong password ${i}00` })).status).toBe(
          401,
        );
      const refused = await page.send('POST', '/console/session', { email, password: 'owner password 1234' });
      expect(refused.status).toBe(429);
      expect(refused.body.message).toMatch(/failed authentications from this address/);
    } finally {
      await own.stop();
    }
  });

  it('when the owner requires an authenticator for the whole lender, then a user without one is refused until invited again', async () => {
    const email = unique('nototp');
    const invited = await call(gateway.url, lender.apiKey, 'POST', '/api/users', { email, role: 'viewer' });
    await accept(invited.body.invitationUrl, 'viewer password 34', false);
    expect((await owner.page.send('PATCH', '/console/api/users/settings', { requireTotp: true })).body).toEqual({
      requireTotp: true,
    });
    expect((await signIn(email, 'viewer password 34')).status).toBe(403);
    const next = await call(gateway.url, lender.apiKey, 'POST', '/api/users', {
      email: unique('withtotp'),
      role: 'viewer',
    });
    expect((await accept(next.body.invitationUrl, 'viewer password 56', false)).status).toBe(400);
    expect((await accept(next.body.invitationUrl, 'viewer password 56', true)).status).toBe(200);
    expect(
      (await call(gateway.url, lender.apiKey, 'PATCH', '/api/users/settings', { requireTotp: false })).status,
    ).toBe(200);
  });
});
