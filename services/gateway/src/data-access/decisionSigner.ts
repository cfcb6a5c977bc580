import { createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, CompactSign, type JWK } from 'jose';

/** PKCS #8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The media type of a decision record's JWS header (`typ`). */
export const DECISION_RECORD_TYPE = 'loan-decision-record+jws';
/** The media type of a deletion receipt's JWS header (`typ`). */
export const DELETION_RECEIPT_TYPE = 'loan-deletion-receipt+jws';

/**
 * The key that signs decision records (Ed25519, `EdDSA`): from `DECISION_SIGNING_KEY` (a 32-byte
 * seed, base64url) or, when unset, derived from `DATA_KEY` by HKDF-SHA256, so that every replica
 * signs with the same key and a record signed before a restart still verifies. Its public half
 * is published at `/.well-known/jwks.json` under its RFC 7638 thumbprint as `kid`.
 */
export function createDecisionSigner(options: { seed?: string; dataKey: string; issuer: string }) {
  const seed = options.seed
    ? Buffer.from(options.seed, 'base64url')
    : Buffer.from(hkdfSync('sha256', options.dataKey, 'loan-decision-records', 'ed25519-signing-key', 32));
  if (seed.length !== 32) throw new Error('DECISION_SIGNING_KEY must be 32 bytes, base64url');
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const published = (async () => {
    const publicJwk: JWK = await exportJWK(createPublicKey(privateKey));
    const kid = await calculateJwkThumbprint(publicJwk);
    return { kid, jwks: { keys: [{ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }] } };
  })();
  return {
    /** The key's id: its RFC 7638 thumbprint. */
    kid: async () => (await published).kid,
    /** The published key set (`/.well-known/jwks.json`). */
    jwks: async () => (await published).jwks,
    /** The compact JWS of `claims` (a JSON object), with `iss` and `iat` set; a decision record unless `typ` says otherwise. */
    async sign(claims: Record<string, unknown>, now: Date, typ: string = DECISION_RECORD_TYPE): Promise<string> {
      const { kid } = await published;
      const payload = { iss: options.issuer, iat: Math.floor(now.getTime() / 1000), ...claims };
      return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'EdDSA', kid, typ })
        .sign(privateKey);
    },
  };
}
export type DecisionSigner = ReturnType<typeof createDecisionSigner>;
