import { spawnSync } from 'node:child_process';
import path from 'node:path';
import mongoose from 'mongoose';
import { uniqueName } from '@testing/helpers';
import { sealedBeforePurposes } from './__tests__/legacySealed';
import { createSealer, isLegacySealed, SealPurposes } from './seal';

/**
 * `npm run reseal` after a DATA_KEY rotation, against the real database: every value sealed
 * under the old key, or before values were bound to a purpose, is re-sealed under the new one
 * for its purpose, wherever it sits in a document; a second run has nothing to do.
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
      env: {
        ...process.env,
        MONGO_URL: mongoUrl,
        DATA_KEY: newKey,
        DATA_KEY_PREVIOUS: oldKey,
        RESEAL_DATABASES: dbName,
      },
    });

  it('when values sealed under the old key sit in nested fields and arrays, then each is re-sealed under the new key for its purpose and still opens to the same text', async () => {
    const old = createSealer(oldKey);
    const db = connection.useDb(dbName).db!;
    await db.collection('clients').insertOne({
      _id: 'c1' as never,
      providerSecretKey: old.for('client-secrets').seal('sk_live_123'),
      webhookSecrets: [{ secret: old.for('client-secrets').seal('whsec_1'), validUntil: null }],
      name: 'Lender',
    });
    await db
      .collection('applications')
      .insertOne({ _id: 'a1' as never, applicant: { bvnSealed: old.seal('22291827364'), firstName: 'plain' } });

    const first = run();
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`${dbName}: 3 re-sealed, 0 changed meanwhile, 0 under an unknown key`);
    const fresh = createSealer(newKey);
    const client = await db.collection('clients').findOne({ _id: 'c1' as never });
    const app = await db.collection('applications').findOne({ _id: 'a1' as never });
    const secrets = [client!.providerSecretKey, client!.webhookSecrets[0].secret] as string[];
    expect(secrets.map((v) => fresh.for('client-secrets').isCurrent(v))).toEqual([true, true]);
    expect(secrets.map((v) => fresh.for('client-secrets').open(v))).toEqual(['sk_live_123', 'whsec_1']);
    expect(fresh.isCurrent(app!.applicant.bvnSealed)).toBe(true);
    expect(fresh.open(app!.applicant.bvnSealed)).toBe('22291827364');
    expect(client!.name).toBe('Lender');
    expect(app!.applicant.firstName).toBe('plain');

    const second = run();
    expect(second.stdout).toContain(`${dbName}: 0 re-sealed, 0 changed meanwhile, 0 under an unknown key`);
  });

  it('when values were sealed before purposes, then each is re-sealed in the current format for the purpose its field is read with, and opens as nothing else', async () => {
    const db = connection.useDb(`${dbName}_legacy`).db!;
    try {
      await db.collection('clients').insertOne({
        _id: 'c1' as never,
        providerSecretKey: sealedBeforePurposes(oldKey, 'sk_live_123'),
        webhookSecrets: [{ secret: sealedBeforePurposes(oldKey, 'whsec_1', { keyId: false }), validUntil: null }],
      });
      await db
        .collection('staff_users')
        .insertOne({ _id: 'u1' as never, totpSecret: sealedBeforePurposes(newKey, 'JBSWY3DPEHPK3PXP') });
      await db
        .collection('applications')
        .insertOne({ _id: 'a1' as never, applicant: { bvnSealed: sealedBeforePurposes(oldKey, '22291827364') } });

      const result = spawnSync(process.execPath, [path.join(root, 'scripts/reseal.mjs')], {
        encoding: 'utf8',
        env: {
          ...process.env,
          MONGO_URL: mongoUrl,
          DATA_KEY: newKey,
          DATA_KEY_PREVIOUS: oldKey,
          RESEAL_DATABASES: `${dbName}_legacy`,
        },
      });
      expect(result.stdout).toContain(`${dbName}_legacy: 4 re-sealed, 0 changed meanwhile, 0 under an unknown key`);
      const fresh = createSealer(newKey);
      const client = await db.collection('clients').findOne({ _id: 'c1' as never });
      const user = await db.collection('staff_users').findOne({ _id: 'u1' as never });
      const app = await db.collection('applications').findOne({ _id: 'a1' as never });
      const moved = [
        [client!.providerSecretKey, 'client-secrets', 'sk_live_123'],
        [client!.webhookSecrets[0].secret, 'client-secrets', 'whsec_1'],
        [user!.totpSecret, 'staff-credentials', 'JBSWY3DPEHPK3PXP'],
        [app!.applicant.bvnSealed, 'personal-data', '22291827364'],
      ] as const;
      for (const [value, purpose, plain] of moved) {
        expect(isLegacySealed(value)).toBe(false);
        expect(fresh.for(purpose).isCurrent(value)).toBe(true);
        expect(fresh.for(purpose).open(value)).toBe(plain);
        for (const other of SealPurposes.filter((p) => p !== purpose))
          expect(() => fresh.for(other).open(value)).toThrow();
      }
    } finally {
      await db.dropDatabase();
    }
  });

  it('when a value was sealed under a key the command was not given, then it is left as it is and the command fails', async () => {
    const db = connection.useDb(dbName).db!;
    await db
      .collection('stray')
      .insertOne({ _id: 's1' as never, secret: createSealer('a-third-key-nobody-kept').seal('x') });
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('1 under an unknown key');
  });
});
