// Re-seals stored values under the current DATA_KEY after a rotation (docs/privacy.md):
//
//   DATA_KEY=<new> DATA_KEY_PREVIOUS=<old> MONGO_URL=mongodb://... npm run reseal
//
// Walks every collection of the services' databases (RESEAL_DATABASES, comma-separated; by
// default loan_<service> for the six services) and replaces each value sealed under another key
// (or sealed before values were bound to a purpose) with the same plain text sealed under DATA_KEY
// for its purpose, only where the document still holds it. It also seals the personal data that
// documents written before it was sealed still hold in plain text (applicants' names, e-mail and
// phone, holder names, the provider's results), in a database whose name ends in _<service> for
// the service that owns those fields. Safe to run while the services run, and again. Prints what
// it did per database; exits 1 when a value was sealed under a key it was not given.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { createSealer, plainPersonalFields, resealDatabase, sealPlainFields } = require(
  path.join(root, 'libs/runtime/dist/index.js'),
);
const mongoose = require('mongoose');

const dataKey = process.env.DATA_KEY;
if (!dataKey) {
  console.error('DATA_KEY (the new key) is required; the old ones go in DATA_KEY_PREVIOUS');
  process.exit(2);
}
const previous = (process.env.DATA_KEY_PREVIOUS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const sealer = createSealer(dataKey, previous);
const databases = (
  process.env.RESEAL_DATABASES ??
  'loan_gateway,loan_applications,loan_enrichment,loan_scoring,loan_notifier,loan_janitor'
)
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

const connection = await mongoose.createConnection(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/').asPromise();
let unknown = 0;
try {
  for (const name of databases) {
    const db = connection.useDb(name).db;
    const count = await resealDatabase(db, sealer);
    unknown += count.unknownKey;
    console.log(
      `${name}: ${count.resealed} re-sealed, ${count.changed} changed meanwhile, ${count.unknownKey} under an unknown key`,
    );
    const service = Object.keys(plainPersonalFields).find((s) => name.endsWith(`_${s}`));
    if (service) {
      const plain = await sealPlainFields(db, sealer, plainPersonalFields[service]);
      console.log(`${name}: ${plain.sealed} plain-text personal values sealed, ${plain.changed} changed meanwhile`);
    }
  }
} finally {
  await connection.close();
}
console.log('every sealed value now opens under DATA_KEY for its purpose');
process.exit(unknown > 0 ? 1 : 0);
