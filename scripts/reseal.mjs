// Re-seals stored values under the current DATA_KEY after a rotation (docs/privacy.md):
//
//   DATA_KEY=<new> DATA_KEY_PREVIOUS=<old> MONGO_URL=mongodb://... npm run reseal
//
// Walks every collection of the services' databases (RESEAL_DATABASES, comma-separated; by
// default loan_<service> for the six services) and replaces each value sealed under another key
// (or sealed before values were bound to a purpose) with the same plain text sealed under DATA_KEY
// for its purpose, only where the document still holds it. Safe
// to run while the services run, and again. Prints what it did per database; exits 1 when a
// value was sealed under a key it was not given.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { createSealer, resealDatabase } = require(path.join(root, 'libs/runtime/dist/index.js'));
const mongoose = require('mongoose');

const dataKey = process.env.DATA_KEY;
if (!dataKey) {
  console.error('DATA_KEY (the new key) is required; the old ones go in DATA_KEY_PREVIOUS');
  process.exit(2);
}
const previous = (process.env.DATA_KEY_PREVIOUS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const sealer = createSealer(dataKey, previous);
const databases = (process.env.RESEAL_DATABASES ?? 'loan_gateway,loan_applications,loan_enrichment,loan_scoring,loan_notifier,loan_janitor')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

const connection = await mongoose.createConnection(process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/').asPromise();
let unknown = 0;
try {
  for (const name of databases) {
    const count = await resealDatabase(connection.useDb(name).db, sealer);
    unknown += count.unknownKey;
    console.log(`${name}: ${count.resealed} re-sealed, ${count.changed} changed meanwhile, ${count.unknownKey} under an unknown key`);
  }
} finally {
  await connection.close();
}
console.log('every sealed value now opens under DATA_KEY for its purpose');
process.exit(unknown > 0 ? 1 : 0);
