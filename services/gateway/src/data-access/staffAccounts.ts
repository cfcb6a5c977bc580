import { randomUUID } from 'node:crypto';
import type { StaffInvitation, StaffRole, StaffUser } from '@loan/contracts';
import type { Clock, Logger, PurposeSealer } from '@loan/runtime';
import { Refusal } from '../domain/errors';
import {
  PASSWORD_MAX,
  PASSWORD_MIN,
  checkTotp,
  decoyHash,
  hashPassword,
  newOneTimeToken,
  newTotpSecret,
  tokenHashOf,
  totpUri,
  verifyPassword,
  waitAfterFailures,
} from '../domain/staff';
import type { StaffUserRecord, StaffUserRepository } from './staffUsers';
import type { AuditRecorder } from './auditLog';
import { entryOf, type Actor } from './clientAccounts';

/** Sends an invitation link to its address. A deployment passes its own (SMTP, SES...); see docs/staff.md. */
export interface InvitationMailer {
  /** Whether the link reaches the invitee by itself; if not, the answer to the invitation carries it once. */
  readonly delivers: boolean;
  send(invitation: { email: string; lenderName: string; role: StaffRole; url: string; expiresAt: Date }): Promise<void>;
}

/**
 * The stand-in where no mailer is plugged in: no e-mail is sent; the link is answered once and,
 * on a local stack, also written to the log. In production the log says only that an invitation
 * was made: a link in a log would be a credential anyone reading the logs could use.
 */
export const logMailer = (logger: Logger, options: { logLink: boolean }): InvitationMailer => ({
  delivers: false,
  async send(invitation) {
    const expiresAt = invitation.expiresAt.toISOString();
    if (!options.logLink) {
      logger.info(
        { invitation: { role: invitation.role, expiresAt } },
        `invitation made for ${invitation.lenderName}; the link was answered once`,
      );
      return;
    }
    logger.info(
      { invitation: { email: invitation.email, role: invitation.role, url: invitation.url, expiresAt } },
      `invitation for ${invitation.email} to ${invitation.lenderName}: ${invitation.url}`,
    );
  },
});

/** The account of a sign-in that passed. */
export interface SignedInUser {
  userId: string;
  clientId: string;
  role: StaffRole;
  email: string;
}

const view = (user: StaffUserRecord): StaffUser => ({
  userId: user.userId,
  email: user.email,
  role: user.role,
  status: user.status,
  totpEnabled: user.totpEnabled,
  createdAt: user.createdAt.toISOString(),
  invitationExpiresAt: user.status === 'invited' && user.invitation ? user.invitation.expiresAt.toISOString() : null,
});

/** A user id in a path names a user only when it is one UUID-shaped string. */
const isUserId = (id: unknown): id is string => typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id);

export function checkPassword(password: unknown): string {
  if (typeof password !== 'string') throw new Refusal('INVALID', 'password is required and must be a string');
  if (password.length < PASSWORD_MIN)
    throw new Refusal('INVALID', `password must be at least ${PASSWORD_MIN} characters`);
  if (password.length > PASSWORD_MAX)
    throw new Refusal('INVALID', `password must be at most ${PASSWORD_MAX} characters`);
  return password;
}

/**
 * A lender's staff: invitations (one-time links that lapse), roles, removal, acceptance with a
 * password and TOTP, and sign-in. Every change writes an audit line naming who did it, and a
 * change of role or password and a removal end the user's console sessions.
 */
export function createStaffAccounts(deps: {
  users: StaffUserRepository;
  sealer: PurposeSealer;
  clock: Clock;
  invitationTtlMs: number;
  mailer: InvitationMailer;
  /** Where the console is, for the invitation link. */
  consoleUrl: () => string;
  lenderName: (clientId: string) => Promise<string>;
  endUserSessions: (clientId: string, userId: string, keep?: string) => Promise<unknown>;
  /** Ends the console sessions opened with the lender's API key (once an owner has an account, the key opens none). */
  endKeySessions: (clientId: string) => Promise<unknown>;
  /** The durable audit (the gateway's `audit_log`) beside the log line. */
  audit?: AuditRecorder;
  logger: Logger;
}) {
  const { users, clock } = deps;

  async function audit(
    by: Actor,
    action: string,
    clientId: string,
    target: { userId: string; email?: string; role?: StaffRole },
  ) {
    deps.logger.info(
      {
        audit: {
          action,
          actor: by.kind,
          ...(by.adminName !== undefined ? { adminName: by.adminName } : {}),
          ...(by.userId !== undefined ? { userId: by.userId } : {}),
          clientId,
          target,
          ip: by.ip,
          correlationId: by.correlationId,
        },
      },
      `${by.kind} action`,
    );
    // The user acted on by id, never by e-mail address: the audit outlives the user.
    await deps.audit?.record({
      ...entryOf(by),
      action,
      clientId,
      details: { userId: target.userId, ...(target.role ? { role: target.role } : {}) },
    });
  }

  async function load(clientId: string, userId: unknown): Promise<StaffUserRecord> {
    const user = isUserId(userId) ? await users.get(clientId, userId) : null;
    if (!user) throw new Refusal('NOT_FOUND', 'User not found');
    return user;
  }

  async function save(next: StaffUserRecord) {
    if (!(await users.update(next))) throw new Refusal('CONFLICT', 'The user was changed concurrently; retry');
  }

  /** A started enrolment handed back: what it sealed, or null when it is not one of ours. */
  function openEnrolment(
    enrolment: unknown,
  ): { clientId?: unknown; userId?: unknown; secret?: unknown; until?: unknown } | null {
    if (typeof enrolment !== 'string') return null;
    try {
      const parsed: unknown = JSON.parse(deps.sealer.for('totp-enrolment').open(enrolment));
      return parsed !== null && typeof parsed === 'object' ? parsed : null;
    } catch {
      return null;
    }
  }

  const createdByOf = (by: Actor) => (by.userId ? by.userId : by.kind === 'admin' ? 'admin' : 'api-key');

  async function invite(clientId: string, email: string, role: StaffRole, by: Actor): Promise<StaffInvitation> {
    if (await users.byEmail(clientId, email))
      throw new Refusal('CONFLICT', 'A user with this e-mail address already exists');
    const now = clock.now();
    const token = newOneTimeToken();
    const lenderName = await deps.lenderName(clientId);
    const { secret } = newTotpSecret(lenderName, email);
    const record: StaffUserRecord = {
      userId: randomUUID(),
      clientId,
      email,
      role,
      status: 'invited',
      passwordHash: null,
      totpSecret: deps.sealer.for('staff-credentials').seal(secret),
      totpEnabled: false,
      totpLastStep: null,
      invitation: { tokenHash: tokenHashOf(token), expiresAt: new Date(now.getTime() + deps.invitationTtlMs) },
      failedSignIns: 0,
      signInBlockedUntil: null,
      createdAt: now,
      createdBy: createdByOf(by),
      version: 1,
    };
    try {
      await users.create(record);
    } catch (error) {
      if ((error as { code?: number }).code === 11000)
        throw new Refusal('CONFLICT', 'A user with this e-mail address already exists');
      throw error;
    }
    // The token travels in the fragment: it never reaches a server log or a Referer.
    const url = `${deps.consoleUrl()}/console#/invitation/${token}`;
    try {
      await deps.mailer.send({ email, lenderName, role, url, expiresAt: record.invitation!.expiresAt });
    } catch (error) {
      // An invitation nobody received is withdrawn, so it can simply be made again.
      await users.remove(clientId, record.userId);
      throw error;
    }
    await audit(by, 'user.invite', clientId, { userId: record.userId, email, role });
    return { ...view(record), ...(deps.mailer.delivers ? {} : { invitationUrl: url }) };
  }

  async function openInvitation(token: unknown): Promise<StaffUserRecord> {
    const user =
      typeof token === 'string' && /^[\w-]{43}$/.test(token) ? await users.byInvitation(tokenHashOf(token)) : null;
    if (!user || user.status !== 'invited' || !user.invitation || user.invitation.expiresAt <= clock.now()) {
      throw new Refusal(
        'NOT_FOUND',
        'This invitation is not valid: it was used, withdrawn or has lapsed; ask an owner for a new one',
      );
    }
    return user;
  }

  return {
    invite,

    /** The first owner of a lender, made by the operator; refused once the lender has one. */
    async createOwner(clientId: string, email: string, by: Actor) {
      if ((await users.countOwners(clientId)) > 0)
        throw new Refusal('CONFLICT', 'This lender already has an owner; owners invite further users');
      return invite(clientId, email, 'owner', by);
    },

    async list(clientId: string) {
      return { items: (await users.list(clientId)).map(view) };
    },

    async hasOwner(clientId: string) {
      return (await users.countOwners(clientId)) > 0;
    },

    async get(clientId: string, userId: string) {
      return users.get(clientId, userId);
    },

    /** A new role; the user's sessions end (the next sign-in carries the new role). */
    async changeRole(clientId: string, userId: unknown, role: StaffRole, by: Actor) {
      const user = await load(clientId, userId);
      if (user.role === 'owner' && role !== 'owner' && (await users.countOwners(clientId)) <= 1) {
        throw new Refusal('CONFLICT', 'A lender keeps at least one owner; make another user owner first');
      }
      const next = { ...user, role, version: user.version + 1 };
      await save(next);
      await deps.endUserSessions(clientId, user.userId);
      await audit(by, 'user.change-role', clientId, { userId: user.userId, role });
      return view(next);
    },

    async remove(clientId: string, userId: unknown, by: Actor) {
      const user = await load(clientId, userId);
      if (user.role === 'owner' && (await users.countOwners(clientId)) <= 1) {
        throw new Refusal('CONFLICT', 'A lender keeps at least one owner; make another user owner first');
      }
      await users.remove(clientId, user.userId);
      await deps.endUserSessions(clientId, user.userId);
      await audit(by, 'user.remove', clientId, { userId: user.userId });
    },

    async setRequireTotp(clientId: string, requireTotp: boolean, by: Actor) {
      await users.setRequireTotp(clientId, requireTotp);
      await audit(by, requireTotp ? 'users.require-totp' : 'users.allow-password-only', clientId, { userId: '*' });
      return { requireTotp };
    },
    requireTotp: (clientId: string) => users.requireTotp(clientId),

    /** What the invitation page shows: the address, role and lender, and the TOTP secret to enrol. */
    async invitation(token: unknown) {
      const user = await openInvitation(token);
      const lenderName = await deps.lenderName(user.clientId);
      const secret = deps.sealer.for('staff-credentials').open(user.totpSecret!);
      return {
        email: user.email,
        role: user.role,
        lenderName,
        expiresAt: user.invitation!.expiresAt.toISOString(),
        totpRequired: await users.requireTotp(user.clientId),
        totpSecret: secret,
        otpauthUri: totpUri(secret, lenderName, user.email),
      };
    },

    /** Sets the password (and enrols TOTP when a code is given, or the lender requires it); the link is spent. */
    async accept(token: unknown, password: unknown, totpCode: unknown) {
      const user = await openInvitation(token);
      const chosen = checkPassword(password);
      const now = clock.now();
      const required = await users.requireTotp(user.clientId);
      let step: number | null = null;
      if (totpCode !== undefined && totpCode !== null && totpCode !== '') {
        step =
          typeof totpCode === 'string'
            ? checkTotp(deps.sealer.for('staff-credentials').open(user.totpSecret!), totpCode, now, null)
            : null;
        if (step === null)
          throw new Refusal(
            'INVALID',
            'totpCode is not the current code of the secret shown; check the device clock and retry',
          );
      } else if (required) {
        throw new Refusal('INVALID', 'totpCode is required: this lender signs in with an authenticator code');
      }
      const next: StaffUserRecord = {
        ...user,
        status: 'active',
        passwordHash: await hashPassword(chosen),
        totpEnabled: step !== null,
        totpSecret: step !== null ? user.totpSecret : null,
        totpLastStep: step,
        invitation: null,
        version: user.version + 1,
      };
      await save(next);
      if (next.role === 'owner') await deps.endKeySessions(user.clientId);
      await audit(
        { kind: 'client', ip: undefined, correlationId: null, userId: user.userId },
        'user.accept-invitation',
        user.clientId,
        { userId: user.userId },
      );
      return view(next);
    },

    /**
     * E-mail, password and (when enrolled or required) a TOTP code. Every refusal says the same,
     * and an unknown address costs the same scrypt as a known one. After a few failures in a row
     * an account waits (30 s, doubling, at most 15 minutes) before its next sign-in is checked;
     * the wait ends by itself, so the right password is never locked out for good.
     */
    async signIn(
      email: string,
      password: string,
      totpCode: string | undefined,
      ip: string | undefined,
    ): Promise<SignedInUser> {
      const now = clock.now();
      const candidates = (await users.allByEmail(email))
        .filter((u) => u.status === 'active' && u.passwordHash)
        .slice(0, 5);
      const refused = () => new Refusal('UNAUTHENTICATED', 'Wrong e-mail address, password or authenticator code');
      if (candidates.length === 0) {
        await verifyPassword(password, await decoyHash());
        throw refused();
      }
      const blocked = candidates.find((u) => u.signInBlockedUntil && u.signInBlockedUntil > now);
      if (blocked && candidates.length === 1) {
        const seconds = Math.ceil((blocked.signInBlockedUntil!.getTime() - now.getTime()) / 1000);
        throw new Refusal(
          'TOO_MANY_ATTEMPTS',
          `Too many failed sign-ins for this account; try again in ${seconds} s`,
          seconds,
        );
      }
      for (const user of candidates) {
        if (user.signInBlockedUntil && user.signInBlockedUntil > now) continue;
        if (!(await verifyPassword(password, user.passwordHash!))) {
          await failed(user);
          continue;
        }
        const required = user.totpEnabled || (await users.requireTotp(user.clientId));
        let step = user.totpLastStep;
        if (required) {
          if (!user.totpEnabled || !user.totpSecret) {
            throw new Refusal(
              'FORBIDDEN',
              'This lender requires an authenticator code and this account has none enrolled; ask an owner to invite you again',
            );
          }
          step = totpCode
            ? checkTotp(deps.sealer.for('staff-credentials').open(user.totpSecret), totpCode, now, user.totpLastStep)
            : null;
          if (step === null) {
            await failed(user);
            throw refused();
          }
        }
        await users.update({
          ...user,
          failedSignIns: 0,
          signInBlockedUntil: null,
          totpLastStep: step,
          version: user.version + 1,
        });
        deps.logger.info(
          { audit: { action: 'user.sign-in', actor: 'client', userId: user.userId, clientId: user.clientId, ip } },
          'client action',
        );
        return { userId: user.userId, clientId: user.clientId, role: user.role, email: user.email };
      }
      throw refused();

      async function failed(user: StaffUserRecord) {
        const failures = user.failedSignIns + 1;
        const wait = waitAfterFailures(failures);
        await users.update({
          ...user,
          failedSignIns: failures,
          signInBlockedUntil: wait > 0 ? new Date(now.getTime() + wait) : null,
          version: user.version + 1,
        });
      }
    },

    /** A new password for a signed-in user; the user's other sessions end. */
    async changePassword(clientId: string, userId: string, current: unknown, chosen: unknown, keepSession: string) {
      const user = await load(clientId, userId);
      if (typeof current !== 'string' || !user.passwordHash || !(await verifyPassword(current, user.passwordHash))) {
        throw new Refusal('FORBIDDEN', 'The current password is wrong');
      }
      const next = { ...user, passwordHash: await hashPassword(checkPassword(chosen)), version: user.version + 1 };
      await save(next);
      await deps.endUserSessions(clientId, user.userId, keepSession);
      await audit({ kind: 'client', ip: undefined, correlationId: null, userId }, 'user.change-password', clientId, {
        userId,
      });
    },

    /**
     * The first step of a new authenticator for a signed-in user, after the current password: a
     * new secret to show, and `enrolment`, the same secret sealed with the user and a lapse
     * (TOTP_ENROLMENT_MS), which the second step hands back with a code of it. Nothing changes
     * until then: the old authenticator keeps working.
     */
    async startTotpEnrolment(clientId: string, userId: string, current: unknown) {
      const user = await load(clientId, userId);
      if (typeof current !== 'string' || !user.passwordHash || !(await verifyPassword(current, user.passwordHash))) {
        throw new Refusal('FORBIDDEN', 'The current password is wrong');
      }
      const { secret, uri } = newTotpSecret(await deps.lenderName(clientId), user.email);
      const until = clock.now().getTime() + TOTP_ENROLMENT_MS;
      return {
        totpSecret: secret,
        otpauthUri: uri,
        enrolment: deps.sealer.for('totp-enrolment').seal(JSON.stringify({ clientId, userId, secret, until })),
      };
    },

    /** The second step: a code of the new secret makes it the user's authenticator; the user's other sessions end. */
    async enrolTotp(clientId: string, userId: string, enrolment: unknown, code: unknown, keepSession: string) {
      const now = clock.now();
      const pending = openEnrolment(enrolment);
      if (
        !pending ||
        pending.clientId !== clientId ||
        pending.userId !== userId ||
        typeof pending.secret !== 'string'
      ) {
        throw new Refusal('INVALID', 'enrolment is not valid; start the new authenticator again');
      }
      if (typeof pending.until !== 'number' || pending.until < now.getTime()) {
        throw new Refusal('INVALID', 'enrolment has lapsed; start the new authenticator again');
      }
      const step = typeof code === 'string' ? checkTotp(pending.secret, code, now, null) : null;
      if (step === null)
        throw new Refusal(
          'INVALID',
          'totpCode is not the current code of the new secret; check the device clock and retry',
        );
      const user = await load(clientId, userId);
      await save({
        ...user,
        totpSecret: deps.sealer.for('staff-credentials').seal(pending.secret),
        totpEnabled: true,
        totpLastStep: step,
        version: user.version + 1,
      });
      await deps.endUserSessions(clientId, userId, keepSession);
      await audit({ kind: 'client', ip: undefined, correlationId: null, userId }, 'user.enrol-totp', clientId, {
        userId,
      });
    },
  };
}

/** How long a started authenticator enrolment may be finished: ten minutes. */
export const TOTP_ENROLMENT_MS = 10 * 60_000;
export type StaffAccounts = ReturnType<typeof createStaffAccounts>;
