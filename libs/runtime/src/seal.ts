import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * Seals secrets (provider keys, webhook secrets) and applicants' personal data with AES-256-GCM
 * under a key derived from the platform's data key, so that they are never stored or sent on
 * Kafka in plain text. Format: `v1.<head>.<tag>.<ciphertext>`, base64url parts.
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

/**
 * What a sealed value is for. Each purpose seals under a subkey of its own (HKDF from the data
 * key) and binds its name as associated data, so a value sealed for one never opens as another
 * (a webhook secret cannot be passed off as a reviewer's name, an applicant's details as an
 * enrolment token). Purposes are kinds of data, not services: every service that opens a kind
 * of value names the same purpose as the one that sealed it.
 */
export const SealPurposes = [
  /** Applicants' names, e-mail, phone, BVN, account holders' names, reviewers and their notes. */
  'personal-data',
  /** Lenders' provider keys, provider webhook secrets and webhook signing secrets. */
  'client-secrets',
  /** Staff users' TOTP secrets. */
  'staff-credentials',
  /** The TOTP enrolment token handed to a browser between setup and confirmation. */
  'totp-enrolment',
  /** Command results travelling back to the gateway (they name the applicant). */
  'command-replies',
] as const;
export type SealPurpose = (typeof SealPurposes)[number];

/** A {@link Sealer} for one purpose, that hands out sealers for the others. */
export interface PurposeSealer extends Sealer {
  readonly purpose: SealPurpose;
  /** The same keys, sealing and opening for another purpose. */
  for(purpose: SealPurpose): PurposeSealer;
  /** Whether a value opens under DATA_KEY itself for this purpose, in the current format. */
  isCurrent(sealed: string): boolean;
  /**
   * Blind indexes of a value: its HMAC-SHA-256 under an index subkey of this purpose (HKDF,
   * apart from the sealing subkeys), for DATA_KEY first and then each of DATA_KEY_PREVIOUS. A
   * store keeps the first, beside the sealed value, so that it can be found by an equal value
   * without being readable; a search looks for any of them, so what was indexed under a
   * previous key is still found.
   */
  blindIndexes(value: string): string[];
}

const SEALED = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a string has the shape of a sealed value. */
export const isSealed = (value: string): boolean => SEALED.test(value);

/** Length of an IV (12 bytes) in base64url. */
const IV_TEXT = 16;
/** Length of the key id that values sealed before purposes carry before their IV. */
const LEGACY_KID_TEXT = 6;
/** What the head of a value in the current format starts with, before its IV. */
const CURRENT_MARK = 'p';

/**
 * Whether a sealed value was written before purposes (one key for everything, no associated
 * data, and a key id that was a digest of the key): `npm run reseal` moves such values on.
 */
export const isLegacySealed = (value: string): boolean => {
  const head = value.split('.')[1] ?? '';
  return isSealed(value) && (head.length === IV_TEXT || head.length === IV_TEXT + LEGACY_KID_TEXT);
};

const MIN_KEY = 16;
const label = (purpose: SealPurpose) => Buffer.from(`loan-seal:${purpose}`, 'utf8');
const indexLabel = (purpose: SealPurpose) => Buffer.from(`loan-blind-index:${purpose}`, 'utf8');

/*
 * Every key is made a KeyObject once, when the sealer is made: given raw bytes, each cipher and
 * HMAC would import the key anew, which costs two to five times the work of sealing a name.
 */

/** A subkey of a data key (HKDF-SHA-256 with the label as info). */
const derive = (dataKey: string, info: Buffer) =>
  createSecretKey(
    Buffer.from(hkdfSync('sha256', Buffer.from(dataKey, 'utf8'), Buffer.from('loan-data-key', 'utf8'), info, 32)),
  );

/** The one key values sealed before purposes used, and the key id they carry. */
const legacyKey = (dataKey: string) =>
  createSecretKey(createHash('sha256').update(`loan-data-key:${dataKey}`).digest());
const legacyIdOf = (dataKey: string) =>
  createHash('sha256').update(`loan-data-key-id:${dataKey}`).digest('base64url').slice(0, LEGACY_KID_TEXT);

function decipher(key: KeyObject, iv: string, tag: string, body: string, aad: Buffer | null): string {
  // Without authTagLength, Node takes a tag as short as 4 bytes: a forgery would be 2^32 tries away.
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
  if (aad) d.setAAD(aad);
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
}

/** The first key a value opens under, trying each in turn (AES-GCM authenticates: it opens under one at most). */
function firstThatOpens(keys: readonly KeyObject[], open: (key: KeyObject) => string): string {
  for (const key of keys) {
    try {
      return open(key);
    } catch {
      // Not under this key (or not for this purpose): try the next.
    }
  }
  throw new Error('The value opens under neither DATA_KEY nor any of DATA_KEY_PREVIOUS for its purpose');
}

/**
 * `dataKey` seals and opens; each of `previousKeys` only opens, so that a new data key can be
 * introduced while values sealed under the old one stay readable. The result seals for
 * `purpose` (personal data unless told); `for` gives the sealer of another purpose.
 *
 * A value names no key: its head is `p<iv>`, and the keys are tried in turn, DATA_KEY first
 * (there is nothing in a value that is a function of the key, so values sealed under the same
 * key in two places cannot be matched up, nor a guessed key checked against an id). Values
 * sealed before purposes (head `<key id><iv>` or a bare IV) still open, under the one key every
 * purpose shared then, until `npm run reseal` moves them on.
 */
export function createSealer(
  dataKey: string,
  previousKeys: readonly string[] = [],
  purpose: SealPurpose = 'personal-data',
): PurposeSealer {
  for (const k of [dataKey, ...previousKeys])
    if (k.length < MIN_KEY) throw new Error(`The data key must be at least ${MIN_KEY} characters`);
  const all = [dataKey, ...previousKeys];
  const subkeys = new Map(SealPurposes.map((p) => [p, all.map((k) => derive(k, label(p)))]));
  const legacy = all.map(legacyKey);
  const legacyById = new Map(all.map((k, i) => [legacyIdOf(k), legacy[i]!]));
  const sealers = new Map<SealPurpose, PurposeSealer>();

  function parts(sealed: string) {
    const [version, head, tag, body] = sealed.split('.');
    if (version !== 'v1' || !head || head.length < IV_TEXT || !tag || body === undefined)
      throw new Error('Not a sealed secret');
    return { head, iv: head.slice(-IV_TEXT), tag, body };
  }

  function make(p: SealPurpose): PurposeSealer {
    const keys = subkeys.get(p)!;
    const indexKeys = all.map((k) => derive(k, indexLabel(p)));
    const aad = label(p);
    const current = (sealed: string) => {
      const { head, iv, tag, body } = parts(sealed);
      return head === `${CURRENT_MARK}${iv}` ? { iv, tag, body } : null;
    };
    const sealer: PurposeSealer = {
      purpose: p,
      for: (other) => sealerFor(other),
      seal(plain: string) {
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', keys[0]!, iv);
        cipher.setAAD(aad);
        const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
        return [
          'v1',
          `${CURRENT_MARK}${iv.toString('base64url')}`,
          cipher.getAuthTag().toString('base64url'),
          body.toString('base64url'),
        ].join('.');
      },
      open(sealed: string) {
        const now = current(sealed);
        if (now) return firstThatOpens(keys, (k) => decipher(k, now.iv, now.tag, now.body, aad));
        const { head, iv, tag, body } = parts(sealed);
        if (head.length === IV_TEXT + LEGACY_KID_TEXT) {
          const k = legacyById.get(head.slice(0, LEGACY_KID_TEXT));
          if (!k) throw new Error('Sealed under an unknown data key: add it to DATA_KEY_PREVIOUS');
          return decipher(k, iv, tag, body, null);
        }
        if (head.length === IV_TEXT) return firstThatOpens(legacy, (k) => decipher(k, iv, tag, body, null));
        throw new Error('Not a sealed secret');
      },
      reveal(value: string) {
        return isSealed(value) ? sealer.open(value) : value;
      },
      blindIndexes(value: string) {
        return indexKeys.map((k) => createHmac('sha256', k).update(value, 'utf8').digest('base64url'));
      },
      isCurrent(sealed: string) {
        const now = current(sealed);
        if (!now) return false;
        try {
          decipher(keys[0]!, now.iv, now.tag, now.body, aad);
          return true;
        } catch {
          return false;
        }
      },
    };
    return sealer;
  }
  function sealerFor(p: SealPurpose): PurposeSealer {
    if (!SealPurposes.includes(p)) throw new Error(`Unknown sealing purpose: ${String(p)}`);
    let s = sealers.get(p);
    if (!s) sealers.set(p, (s = make(p)));
    return s;
  }
  return sealerFor(purpose);
}
