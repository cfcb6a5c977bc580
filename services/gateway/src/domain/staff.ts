import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';
import type { StaffRole } from '@loan/contracts';

/**
 * What a console request may do. `read`: look at applications, deliveries and the account;
 * `applications`: act on applications; `manage`: what only a credit manager adds (activation,
 * confirmation); `developer`: the webhook endpoint, secrets, API key and delivery log changes;
 * `users`: the lender's staff.
 */
export type Permission = 'read' | 'applications' | 'manage' | 'developer' | 'users';

const PERMISSIONS: Record<StaffRole, readonly Permission[]> = {
  owner: ['read', 'applications', 'manage', 'developer', 'users'],
  developer: ['read', 'developer'],
  credit_officer: ['read', 'applications'],
  credit_manager: ['read', 'applications', 'manage'],
  viewer: ['read'],
};

/** Whether a role may do what a permission covers. */
export const roleAllows = (role: StaffRole, permission: Permission) => PERMISSIONS[role].includes(permission);

/** Passwords: at least 12 characters (NIST SP 800-63B), at most 200. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/**
 * scrypt at OWASP's minimum for it: N=2^17 (128 MiB), r=8, p=1. The parameters are stored with
 * each hash, so stronger ones later still verify the old hashes.
 */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, keylen: 32 };

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash` (base64url), for the database. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keylen } = SCRYPT;
  const key = await scryptAsync(password.normalize('NFKC'), salt, keylen, { N, r, p, maxmem: 256 * N * r });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether a password is the one of a stored hash; a malformed hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const N = Number(n);
  const key = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, {
    N,
    r: Number(r),
    p: Number(p),
    maxmem: 256 * N * Number(r),
  });
  return timingSafeEqual(key, expected);
}

/** A hash to check a password against when the e-mail names nobody, so both cost the same. */
let decoy: Promise<string> | null = null;
export const decoyHash = () => (decoy ??= hashPassword(randomBytes(16).toString('base64url')));

/** One-time tokens (invitation links): 32 random bytes; stored as their SHA-256 only. */
export const newOneTimeToken = () => randomBytes(32).toString('base64url');
export const tokenHashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A new TOTP secret (RFC 6238, 160 bits, base32) and the URI an authenticator app takes. */
export function newTotpSecret(issuer: string, label: string): { secret: string; uri: string } {
  const secret = generateSecret();
  return { secret, uri: totpUri(secret, issuer, label) };
}
export const totpUri = (secret: string, issuer: string, label: string) => generateURI({ issuer, label, secret });

/**
 * Checks a 6-digit code at `now`, one 30-second step either way for clocks that drift. A code
 * of a step already used (`afterStep`) is refused, so a code seen over a shoulder is good once.
 * Answers the step used, or null.
 */
export function checkTotp(secret: string, code: string, now: Date, afterStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: 30,
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  });
  return result.valid ? (result as { timeStep: number }).timeStep : null;
}

/** Consecutive failed sign-ins an account takes before it has to wait. */
export const FREE_FAILURES = 5;
const FIRST_WAIT_MS = 30_000;
const LONGEST_WAIT_MS = 15 * 60_000;

/**
 * How long an account waits after its n-th consecutive failed sign-in: nothing for the first
 * few, then 30 s, doubling, never more than 15 minutes. The right password is never locked out
 * for longer than that, and a success starts the count again.
 */
export function waitAfterFailures(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** (failures - FREE_FAILURES));
}
