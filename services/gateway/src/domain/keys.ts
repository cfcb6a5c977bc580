import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new API key: shown once to the lender, stored only as its hash. */
export const newApiKey = () => `lk_${randomBytes(24).toString('base64url')}`;
/** A new webhook signing secret. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

export const hashApiKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** Compares two strings in constant time (for secrets and hashes). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
