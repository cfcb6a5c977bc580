import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals secrets (provider keys, webhook secrets) and applicants' personal data with AES-256-GCM
 * under a key derived from the platform's data key, so that they are never stored or sent on
 * Kafka in plain text. Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string;
  /**
   * Opens a sealed value and passes any other through: for fields that records written before
   * they were sealed still carry in plain text.
   */
  reveal(value: string): string;
}

const SEALED = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a string has the shape of a sealed value. */
export const isSealed = (value: string): boolean => SEALED.test(value);

/**
 * `dataKey` seals and opens; each of `previousKeys` only opens, so that a new data key can be
 * introduced while values sealed under the old one stay readable (AES-GCM authenticates: a value
 * opens under exactly one key, so the keys are tried in turn).
 */
export function createSealer(dataKey: string, previousKeys: readonly string[] = []): Sealer {
  for (const k of [dataKey, ...previousKeys]) if (k.length < 16) throw new Error('The data key must be at least 16 characters');
  const derive = (k: string) => createHash('sha256').update(`loan-data-key:${k}`).digest();
  const key = derive(dataKey);
  const keys = [key, ...previousKeys.map(derive)];
  function openWith(k: Buffer, iv: string, tag: string, body: string): string {
    const decipher = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
  const sealer: Sealer = {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Not a sealed secret');
      for (const [i, k] of keys.entries()) {
        try {
          return openWith(k, iv, tag, body);
        } catch (error) {
          if (i === keys.length - 1) throw error;
        }
      }
      throw new Error('Not a sealed secret');
    },
    reveal(value) {
      return isSealed(value) ? sealer.open(value) : value;
    },
  };
  return sealer;
}
