import { spawnSync } from 'node:child_process';
import path from 'node:path';
import mongoose from 'mongoose';
import { uniqueName } from '@testing/helpers';
import { createSealer, isSealed } from './seal';

/**
 * `npm run reseal` on documents written before the applicants' identity was sealed, against the
 * real database: the plain-text names, e-mail, phone, holder names and provider results are
 * sealed in place, what was sealed stays as it is, and a second run has nothing to do.
 */
const root = path.resolve(__dirname, '../../..');
const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';
const dataKey = 'the-data-key-of-this-test-4321';

describe('sealing the personal data older documents hold in plain text', () => {
  const prefix = uniqueName('sealplain').replace(/-/g, '_');
  const names = { applications: `${prefix}_applications`, enrichment: `${prefix}_enrichment` };
  let connection: mongoose.Connection;

  beforeAll(async () => {
    connection = await mongoose.createConnection(mongoUrl).asPromise();
  });
  afterAll(async () => {
    for (const name of Object.values(names)) await connection.useDb(name).dropDatabase();
    await connection.close();
  });

  const run = () =>
    spawnSync(process.execPath, [path.join(root, 'scripts/reseal.mjs')], {
      encoding: 'utf8',
      env: {
        ...process.env,
        MONGO_URL: mongoUrl,
        DATA_KEY: dataKey,
        DATA_KEY_PREVIOUS: '',
        RESEAL_DATABASES: Object.values(names).join(','),
      },
    });

  it('when an application, its bank data and its enrichment job hold identity in plain text, then each value is sealed in place and opens to the same text', async () => {
    const sealer = createSealer(dataKey);
    const bvnSealed = sealer.seal('22291827364');
    const applications = connection.useDb(names.applications).db!.collection('applications');
    await applications.insertOne({
      _id: 'a1' as never,
      rev: 3,
      applicant: { firstName: 'Adaeze', lastName: 'Okafor', email: 'ada@example.ng', phone: '08031234567', bvnSealed },
      accounts: [
        { accountId: 'x1', holderName: 'ADAEZE OKAFOR', accountNumber: '0123456785' },
        { accountId: 'x2', holderName: '', accountNumber: '******6785' },
      ],
    });
    const enrichment = connection.useDb(names.enrichment).db!;
    const income = { account_name: 'ADAEZE OKAFOR', streams: [{ narration: 'SALARY' }] };
    await enrichment.collection('enrichment_jobs').insertOne({
      _id: 'x1' as never,
      rev: 2,
      income: { status: 'DONE', result: income },
      insights: { status: 'NOT_STARTED', result: null },
    });
    await enrichment.collection('bank_data').insertOne({
      _id: 'x1' as never,
      profile: {
        holderName: 'ADAEZE OKAFOR',
        income: { streams: [{ lastIncomeDescription: 'TRF FROM ADAEZE OKAFOR' }, { lastIncomeDescription: null }] },
      },
    });

    const first = run();
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`${names.applications}: 5 plain-text personal values sealed, 0 changed meanwhile`);
    expect(first.stdout).toContain(`${names.enrichment}: 3 plain-text personal values sealed, 0 changed meanwhile`);

    const app = (await applications.findOne({ _id: 'a1' as never }))!;
    const stored = [
      app.applicant.firstName,
      app.applicant.lastName,
      app.applicant.email,
      app.applicant.phone,
      app.accounts[0].holderName,
    ];
    expect(stored.every((v) => isSealed(v))).toBe(true);
    expect(stored.map((v) => sealer.open(v))).toEqual([
      'Adaeze',
      'Okafor',
      'ada@example.ng',
      '08031234567',
      'ADAEZE OKAFOR',
    ]);
    expect([app.applicant.bvnSealed, app.accounts[1].holderName, app.rev]).toEqual([bvnSealed, '', 3]);
    const job = (await enrichment.collection('enrichment_jobs').findOne({ _id: 'x1' as never }))!;
    expect(JSON.parse(sealer.open(job.income.result))).toEqual(income);
    expect(job.insights.result).toBeNull();
    const bank = (await enrichment.collection('bank_data').findOne({ _id: 'x1' as never }))!;
    expect(sealer.open(bank.profile.holderName)).toBe('ADAEZE OKAFOR');
    expect(sealer.open(bank.profile.income.streams[0].lastIncomeDescription)).toBe('TRF FROM ADAEZE OKAFOR');
    expect(bank.profile.income.streams[1].lastIncomeDescription).toBeNull();

    const second = run();
    expect(second.status).toBe(0);
    expect(second.stdout).toContain(`${names.applications}: 0 plain-text personal values sealed`);
    expect(second.stdout).toContain(`${names.enrichment}: 0 plain-text personal values sealed`);
  });
});
