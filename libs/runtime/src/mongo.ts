import mongoose, { type Connection, type Model, type mongo } from 'mongoose';
import type { Logger } from './logger';
import type { Metrics } from './metrics';

/**
 * Opens the service's own connection (not mongoose's global one, so several services can share
 * a test process). Only the subset of MongoDB that FerretDB also speaks is used: single-document
 * atomic updates, unique indexes, no transactions, no change streams.
 */
export async function connectMongo(options: {
  url: string;
  dbName: string;
  logger: Logger;
  /** Counts every command sent, by name and collection. */
  commands?: Pick<Metrics['databaseCommands'], 'inc'>;
  /** Observes how long every command took to be answered, by name and outcome. */
  durations?: Pick<Metrics['databaseDuration'], 'observe'>;
}): Promise<Connection> {
  const connection = mongoose.createConnection(options.url, {
    dbName: options.dbName,
    serverSelectionTimeoutMS: 10_000,
    maxPoolSize: 20,
    autoIndex: true,
    monitorCommands: options.commands !== undefined || options.durations !== undefined,
  });
  const { commands } = options;
  if (commands) {
    connection.getClient().on('commandStarted', (event) => {
      const target: unknown = event.command[event.commandName];
      commands.inc({ command: event.commandName, collection: typeof target === 'string' ? target : '' });
    });
  }
  const { durations } = options;
  if (durations) {
    // The driver measures `duration` (ms) from sending the command to reading its answer.
    connection
      .getClient()
      .on('commandSucceeded', (event) =>
        durations.observe({ command: event.commandName, outcome: 'ok' }, event.duration / 1000),
      );
    connection
      .getClient()
      .on('commandFailed', (event) =>
        durations.observe({ command: event.commandName, outcome: 'error' }, event.duration / 1000),
      );
  }
  connection.on('disconnected', () => options.logger.warn({ component: 'mongo' }, 'database disconnected'));
  connection.on('reconnected', () => options.logger.info({ component: 'mongo' }, 'database reconnected'));
  await connection.asPromise();
  return connection;
}

/** Builds the indexes of every model of a connection, before the service takes work. */
export async function syncIndexes(connection: Connection): Promise<void> {
  for (const model of Object.values(connection.models)) await model.init();
}

/**
 * The driver's collection behind a model, typed by its stored documents. For the per-message
 * paths: a model's `create` and its cast updates build a document object, apply defaults and
 * run hooks on every call, which costs more CPU than the round trip itself. The caller writes
 * complete documents of the model's schema (dates as Date), exactly as they are to be stored.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function rawCollection<T extends mongo.Document>(model: Model<any>): mongo.Collection<T> {
  const db = model.db.db;
  if (!db) throw new Error(`The database of ${model.modelName} is not connected yet`);
  // As mongoose does for its models, a field set to undefined is left out rather than stored
  // as null (on these collections only: in a filter it would match everything).
  return db.collection<T>(model.collection.collectionName, { ignoreUndefined: true });
}

/** True when an error is MongoDB's duplicate-key error (a unique index refused a write). */
export const isDuplicateKey = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: number }).code === 11000;

/**
 * Writes one document of a projection whose changes carry a version (a client account's, say):
 * the highest version wins, so a replayed or reordered change never undoes a newer one. `fields`
 * include the `version`. `beforeWrite` runs once the change is known to win, before its write
 * (a cache of the projection forgets the document there). True when the change was written,
 * false when the projection already held that version or a newer one.
 *
 * Read, compare and write: safe where one consumer handles a document's partition at a time;
 * an insert that meets a concurrent one reads again.
 */
export async function applyVersioned(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>,
  id: string,
  fields: { version: number } & Record<string, unknown>,
  beforeWrite?: () => void,
): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await model.findById(id, { version: 1 }).lean<{ version: number }>();
    if (current && current.version >= fields.version) return false;
    beforeWrite?.();
    if (current) {
      await model.updateOne({ _id: id }, { $set: fields });
      return true;
    }
    try {
      await model.create({ _id: id, ...fields });
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  return false;
}
