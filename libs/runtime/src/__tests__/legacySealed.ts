import { createCipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * A value as sealers wrote it before values were bound to a purpose: one key for everything,
 * derived from the data key by a digest and named by another (`keyId: false`: the oldest form,
 * with no key id at all). For the tests of opening and re-sealing such values.
 */
export function sealedBeforePurposes(dataKey: string, plain: string, { keyId = true } = {}): string {
  const key = createHash('sha256').update(`loan-data-key:${dataKey}`).digest();
  const kid = createHash('sha256').update(`loan-data-key-id:${dataKey}`).digest('base64url').slice(0, 6);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [
    'v1',
    `${keyId ? kid : ''}${iv.toString('base64url')}`,
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}
