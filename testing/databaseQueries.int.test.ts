import mongoose from 'mongoose';
import { uniqueName } from '@testing/helpers';

/**
 * The database finds a condition on an indexed field through the index (on the local stack, a
 * FerretDB patch: infra/ferretdb/patches/006), and that narrowing must never lose a match. Each
 * filter the services run on an indexed field is asked twice: as it is, and inside an `$or`,
 * which no index narrows, so the database reads every document and applies the filter itself.
 * Both must return the same documents, for values of every shape a field can hold: the value,
 * another value, null, missing, an array holding it, a number, a nested document, old dates.
 */
const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';

const HOUR = 3_600_000;
/** `count` UTC hours as the janitor files timelines under them (`YYYY-MM-DDTHH`), from the one `from` falls in. */
const hours = (from: number, count: number) =>
  Array.from({ length: count }, (_, k) => new Date(from + k * HOUR).toISOString().slice(0, 13));

const filters: Record<string, Record<string, unknown>> = {
  'an outbox sweep': { outboxPending: true },
  'the same with $eq': { outboxPending: { $eq: true } },
  'a false flag': { outboxPending: false },
  "a lender's documents": { clientId: 'c3' },
  "a lender's documents in an $and": { $and: [{ clientId: 'c3' }, { status: { $in: ['DONE', 'PENDING'] } }] },
  'a due-by range': { nextDueAt: { $lte: new Date(1_700_000_100_000) } },
  'a later-than range': { nextDueAt: { $gt: new Date(0) } },
  'not null': { nextDueAt: { $ne: null } },
  null: { nextDueAt: null },
  'open pending jobs': { status: 'PENDING', closedAt: null, scrubbedAt: null },
  'an old-date range': { closedAt: { $lt: new Date(1_000_000_000_000) } },
  'an old sweep with its time bound': { outboxPending: true, nextDueAt: { $lte: new Date() } },
  'a null bound (not narrowed)': { nextDueAt: { $lte: null } },
  "the janitor's periodic reload": { nextDueHour: { $in: hours(1_700_000_000_000 + 2 * HOUR, 27) } },
  'an $in of strings': { clientId: { $in: ['c3', 'c4', 'null'] } },
  'an $in of booleans': { outboxPending: { $in: [true] } },
  'an $in in an $and': { $and: [{ status: { $in: ['PENDING', 'FAILED'] } }, { clientId: 'c1' }] },
  'an $in beside a range on the field': { nextDueHour: { $in: hours(1_700_000_000_000, 3), $gt: '2023' } },
  'an $in beside an equality': { status: { $in: ['DONE'] }, outboxPending: true },
  'an $in holding null (not narrowed)': { closedAt: { $in: [null, 'null'] } },
  'an $in holding a number (not narrowed)': { clientId: { $in: ['c3', 3] } },
  'an $in holding a document (not narrowed)': { clientId: { $in: [{ a: 'c3' }, 'c5'] } },
  'an $in holding an array (not narrowed)': { status: { $in: [['PENDING'], 'DONE'] } },
  'an $in holding a regex (not narrowed)': { status: { $in: [/^PEND/] } },
};

function documents() {
  const docs: Record<string, unknown>[] = [];
  for (let i = 0; i < 400; i++) {
    const doc: Record<string, unknown> = {
      _id: `d${i}`,
      clientId: `c${i % 10}`,
      outboxPending: i % 50 === 0,
      status: ['PENDING', 'DONE', 'FAILED'][i % 3],
    };
    if (i % 7 === 0) doc.nextDueAt = new Date(1_700_000_000_000 + i * 1000);
    else if (i % 7 === 1) doc.nextDueAt = null;
    if (i % 7 === 0) doc.nextDueHour = hours(1_700_000_000_000 + i * 10 * 60_000, 1)[0];
    else if (i % 7 === 1) doc.nextDueHour = null;
    if (i % 11 === 0) doc.closedAt = new Date(5);
    else if (i % 11 === 1) doc.closedAt = null;
    docs.push(doc);
  }
  docs.push(
    {
      _id: 'array',
      clientId: ['c3', 'c4'],
      outboxPending: [false, true],
      nextDueAt: [null, new Date(3)],
      nextDueHour: [null, '2023-11-15T01'],
      closedAt: [null],
      status: ['PENDING'],
    },
    { _id: 'number', clientId: 3, outboxPending: 1, nextDueAt: 5, nextDueHour: 2023, closedAt: 0, status: 7 },
    { _id: 'old dates', nextDueAt: new Date(-5000), closedAt: new Date(999_999_999_999) },
    {
      _id: 'nested',
      clientId: { a: 'c3' },
      nextDueAt: { at: 1 },
      nextDueHour: { hour: '2023-11-15T01' },
      status: 'PENDING',
    },
    {
      _id: 'string date',
      nextDueAt: '2023-11-14',
      nextDueHour: '2023-11-15T02',
      closedAt: 'null',
      clientId: 'null',
    },
    { _id: 'boolean', nextDueHour: true, outboxPending: 'true', status: ['DONE', 'PENDING'] },
  );
  return docs;
}

describe('conditions on an indexed field find what a full read finds', () => {
  const dbName = uniqueName('indexed-queries').replace(/-/g, '_');
  let connection: mongoose.Connection;
  let collection: mongoose.mongo.Collection<{ _id: string }>;

  beforeAll(async () => {
    connection = await mongoose.createConnection(mongoUrl).asPromise();
    collection = connection.useDb(dbName).collection('docs');
    for (const field of ['outboxPending', 'clientId', 'nextDueAt', 'nextDueHour', 'status', 'closedAt']) {
      await collection.createIndex({ [field]: 1 });
    }
    await collection.insertMany(documents() as never[]);
  });
  afterAll(async () => {
    await connection.useDb(dbName).dropDatabase();
    await connection.close();
  });

  const ids = async (filter: Record<string, unknown>) =>
    (await collection.find(filter, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id).sort();

  it.each(Object.entries(filters))('%s', async (_name, filter) => {
    const narrowed = await ids(filter);
    const fullRead = await ids({ $or: [filter] });
    expect(narrowed).toEqual(fullRead);
    expect(await collection.countDocuments(filter)).toBe(fullRead.length);
  });

  it('finds something for every filter', async () => {
    // The comparison above is only worth something when the filters select documents.
    for (const [name, filter] of Object.entries(filters)) {
      expect({ name, found: (await ids(filter)).length > 0 }).toEqual({ name, found: true });
    }
  });

  it('finds the array that holds a value, as MongoDB does', async () => {
    expect(await ids({ clientId: 'c4' })).toContain('array');
    expect(await ids({ outboxPending: true })).toContain('array');
    expect(await ids({ closedAt: null })).toContain('array');
    expect(await ids({ nextDueHour: { $in: ['2023-11-15T01'] } })).toContain('array');
    expect(await ids({ status: { $in: ['PENDING'] } })).toEqual(expect.arrayContaining(['array', 'boolean']));
  });

  it.each([
    ["the janitor's periodic reload", filters["the janitor's periodic reload"]!],
    ['an $in of strings', filters['an $in of strings']!],
    ['an $in of booleans', filters['an $in of booleans']!],
    ['an outbox sweep', filters['an outbox sweep']!],
    ["a lender's documents", filters["a lender's documents"]!],
  ])('reads %s through the index, not the whole collection', async (_name, filter) => {
    // FerretDB shows SQLite's plan (SEARCH ... USING INDEX, or SCAN for a full read); MongoDB
    // its own (IXSCAN or COLLSCAN).
    const plan = JSON.stringify((await collection.find(filter).explain()).queryPlanner);
    expect(plan).toMatch(/USING INDEX|IXSCAN/);
    expect(plan).not.toMatch(/detail=SCAN |COLLSCAN/);
  });

  it('counts each group what a read finds in it, however the count is asked', async () => {
    // A $group that only counts keeps no documents on the local stack (FerretDB patch 007).
    const expected: Record<string, number> = {};
    for (const doc of await collection.find({ status: 'PENDING' }).toArray()) {
      const key = JSON.stringify((doc as { clientId?: unknown }).clientId ?? null);
      expected[key] = (expected[key] ?? 0) + 1;
    }
    for (const [n, times] of [
      [{ $sum: 1 }, 1],
      [{ $count: {} }, 1],
      [{ $sum: 2 }, 2],
    ] as const) {
      const groups = await collection
        .aggregate<{ _id: unknown; n: number }>([
          { $match: { status: 'PENDING' } },
          { $group: { _id: '$clientId', n } },
        ])
        .toArray();
      const counted = Object.fromEntries(groups.map((g) => [JSON.stringify(g._id), g.n / times]));
      expect(counted).toEqual(expected);
    }
  });

  it('finds nothing for an empty $in, narrowed or not', async () => {
    expect(await ids({ clientId: { $in: [] } })).toEqual([]);
    expect(await ids({ $or: [{ clientId: { $in: [] } }] })).toEqual([]);
  });
});
