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

/** Length of an IV (12 bytes) in base64url. */
const IV_TEXT = 16;

/**
 * `dataKey` seals and opens; each of `previousKeys` only opens, so that a new data key can be
 * introduced while values sealed under the old one stay readable. A sealed value names its key:
 * the IV part is `<key id><iv>`, the key id being the first 6 base64url characters of a digest
 * of the key (the shape stays `v1.<a>.<b>.<c>`, which the registry's schemas already accept).
 * Values sealed before key ids existed have a bare IV; the keys are tried in turn for them
 * (AES-GCM authenticates, so a value opens under exactly one).
 */
export function createSealer(dataKey: string, previousKeys: readonly string[] = []): Sealer & { keyId: string; keyIdOf(sealed: string): string | null } {
  for (const k of [dataKey, ...previousKeys]) if (k.length < 16) throw new Error('The data key must be at least 16 characters');
  const derive = (k: string) => createHash('sha256').update(`loan-data-key:${k}`).digest();
  const idOf = (k: string) => createHash('sha256').update(`loan-data-key-id:${k}`).digest('base64url').slice(0, 6);
  const key = derive(dataKey);
  const keyId = idOf(dataKey);
  const keys = new Map([[keyId, key], ...previousKeys.map((k): [string, Buffer] => [idOf(k), derive(k)])]);
  function openWith(k: Buffer, iv: string, tag: string, body: string): string {
    // Without authTagLength, Node takes a tag as short as 4 bytes: a forgery would be 2^32 tries away.
    const decipher = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
  function parts(sealed: string) {
    const [version, head, tag, body] = sealed.split('.');
    if (version !== 'v1' || !head || head.length < IV_TEXT || !tag || body === undefined) throw new Error('Not a sealed secret');
    return { kid: head.length > IV_TEXT ? head.slice(0, -IV_TEXT) : null, iv: head.slice(-IV_TEXT), tag, body };
  }
  const sealer = {
    keyId,
    /** The id of the key a value was sealed with; null for values sealed before key ids. */
    keyIdOf: (sealed: string) => parts(sealed).kid,
    seal(plain: string) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', `${keyId}${iv.toString('base64url')}`, tag.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed: string) {
      const { kid, iv, tag, body } = parts(sealed);
      if (kid !== null) {
        const k = keys.get(kid);
        if (!k) throw new Error(`Sealed under an unknown data key (${kid}): add it to DATA_KEY_PREVIOUS`);
        return openWith(k, iv, tag, body);
      }
      const candidates = [...keys.values()];
      for (const [i, k] of candidates.entries()) {
        try {
          return openWith(k, iv, tag, body);
        } catch (error) {
          if (i === candidates.length - 1) throw error;
        }
      }
      throw new Error('Not a sealed secret');
    },
    reveal(value: string) {
      return isSealed(value) ? sealer.open(value) : value;
    },
  };
  return sealer;
}
