// Read-only look at the services' databases after a run: documents per collection, how many
// still hold an unpublished outbox, and what the outbox sweep's query costs the database (only
// for the collections with an outbox, the ones the relays sweep).
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { createRequire } from 'node:module';
import { infraEnv, root, round } from './util.mjs';

const SERVICES = ['gateway', 'applications', 'enrichment', 'scoring', 'notifier', 'janitor'];

export async function probeOutboxes(dbPrefix) {
  const mongoose = createRequire(path.join(root, 'libs', 'runtime', 'package.json'))('mongoose');
  const url = process.env.MONGO_URL ?? infraEnv().MONGO_URL ?? 'mongodb://127.0.0.1:27017/';
  const connection = await mongoose.createConnection(url, { serverSelectionTimeoutMS: 5_000 }).asPromise();
  const rows = [];
  try {
    for (const service of SERVICES) {
      const db = connection.useDb(dbPrefix ? `${dbPrefix}${service}` : `loan_${service}`).db;
      for (const { name } of await db.listCollections().toArray()) {
        const collection = db.collection(name);
        const documents = await collection.countDocuments();
        if (documents === 0) continue;
        // Only a collection with an outbox is swept (its documents carry the indexed flag).
        const swept = (await collection.listIndexes().toArray()).some((index) => index.key?.outboxPending === 1);
        if (!swept) {
          rows.push({ service, collection: name, documents, outboxPending: null, sweepQueryMs: null });
          continue;
        }
        const t = performance.now();
        const pending = (
          await collection
            .find({ outboxPending: true }, { projection: { _id: 1 } })
            .limit(500)
            .toArray()
        ).length;
        const sweepQueryMs = performance.now() - t;
        rows.push({ service, collection: name, documents, outboxPending: pending, sweepQueryMs: round(sweepQueryMs) });
      }
    }
  } finally {
    await connection.close();
  }
  return rows;
}
