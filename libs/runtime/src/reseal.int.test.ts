import { spawnSync } from 'node:child_process';
import path from 'node:path';
import mongoose from 'mongoose';
import { uniqueName } from '../../../testing/helpers';
import { createSealer } from './seal';

/**
 * `npm run reseal` after a DATA_KEY rotation, against the real database: every value sealed
 * under the old key (or before key ids) is re-sealed under the new one, wherever it sits in a
 * document; a second run has nothing to do.
 */
const root = path.resolve(__dirname, '../../..');
const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';
const oldKey = 'the-old-data-key-1234';
const newKey = 'the-new-data-key-5678';

describe('re-sealing stored values after a key rotation', () => {
  const dbName = uniqueName('reseal').replace(/-/g, '_');
  let connection: mongoose.Connection;

  beforeAll(async () => {
    connection = await mongoose.createConnection(mongoUrl).asPromise();
  });
  afterAll(async () => {
    await connection.useDb(dbName).dropDatabase();
    await connection.close();
  });

  const run = () =>
    spawnSync(process.execPath, [path.join(root, 'scripts/reseal.mjs')], {
      encoding: 'utf8',
      env: { ...process.env, MONGO_URL: mongoUrl, DATA_KEY: newKey, DATA_KEY_PREVIOUS: oldKey, RESEAL_DATABASES: dbName },
    });

  it('when values sealed under the old key sit in nested fields and arrays, then each is re-sealed under the new key and still opens to the same text', async () => {
    const old = createSealer(oldKey);
    const legacy = old.seal('sealed-before-key-ids').replace(`v1.${old.keyId}`, 'v1.');
    const db = connection.useDb(dbName).db!;
    await db.collection('clients').insertOne({
      _id: 'c1' as never,
      providerSecretKey: old.seal('sk_live_123'),
      webhookSecrets: [{ secret: old.seal('whsec_1'), validUntil: null }, { secret: legacy, validUntil: null }],
      name: 'Lender',
    });
    await db.collection('applications').insertOne({ _id: 'a1' as never, applicant: { bvnSealed: old.seal('22291827364'), firstName: 'plain' } });

    const first = run();
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`${dbName}: 4 re-sealed, 0 changed meanwhile, 0 under an unknown key`);
    const fresh = createSealer(newKey);
    const client = await db.collection('clients').findOne({ _id: 'c1' as never });
    const app = await db.collection('applications').findOne({ _id: 'a1' as never });
    const values = [client!.providerSecretKey, client!.webhookSecrets[0].secret, client!.webhookSecrets[1].secret, app!.applicant.bvnSealed] as string[];
    expect(values.map((v) => fresh.keyIdOf(v))).toEqual([fresh.keyId, fresh.keyId, fresh.keyId, fresh.keyId]);
    expect(values.map((v) => fresh.open(v))).toEqual(['sk_live_123', 'whsec_1', 'sealed-before-key-ids', '22291827364']);
    expect(client!.name).toBe('Lender');
    expect(app!.applicant.firstName).toBe('plain');

    const second = run();
    expect(second.stdout).toContain(`${dbName}: 0 re-sealed, 0 changed meanwhile, 0 under an unknown key`);
  });

  it('when a value was sealed under a key the command was not given, then it is left as it is and the command fails', async () => {
    const db = connection.useDb(dbName).db!;
    await db.collection('stray').insertOne({ _id: 's1' as never, secret: createSealer('a-third-key-nobody-kept').seal('x') });
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('1 under an unknown key');
  });
});
