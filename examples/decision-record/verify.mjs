// Verifies a decision record (a compact JWS) with the service's published key set and prints
// its payload as one JSON line; exits 1, saying why, when it does not verify.
//
//   node verify.mjs <record> <https://gateway.example/.well-known/jwks.json>
//
// `jose` fetches the key set once and picks the key the record's header names (`kid`).
import { createRemoteJWKSet, compactVerify } from 'jose';

const [record, jwksUrl] = process.argv.slice(2);
if (!record || !jwksUrl) {
  console.error('usage: node verify.mjs <record> <jwks url>');
  process.exit(2);
}

try {
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  const { payload, protectedHeader } = await compactVerify(record, keys, { algorithms: ['EdDSA'] });
  if (protectedHeader.typ !== 'loan-decision-record+jws')
    throw new Error(`not a decision record: ${protectedHeader.typ}`);
  console.log(
    JSON.stringify({
      verified: true,
      kid: protectedHeader.kid,
      record: JSON.parse(Buffer.from(payload).toString('utf8')),
    }),
  );
} catch (error) {
  console.error(JSON.stringify({ verified: false, reason: error.message }));
  process.exit(1);
}
