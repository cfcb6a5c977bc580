import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals secrets (provider keys, webhook secrets) with AES-256-GCM under a key derived from the
 * platform's data key, so that they are never stored or sent on Kafka in plain text.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function createSealer(dataKey: string): Sealer {
  if (dataKey.length < 16) throw new Error('The data key must be at least 16 characters');
  const key = createHash('sha256').update(`loan-data-key:${dataKey}`).digest();
  return {
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
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
