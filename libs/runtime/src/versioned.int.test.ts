import mongoose, { Schema } from 'mongoose';
import { uniqueName } from '@testing/helpers';
import { applyVersioned } from './mongo';

const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';

describe('a projection whose changes carry a version', () => {
  const dbName = uniqueName('versioned').replace(/-/g, '_');
  let connection: mongoose.Connection;
  interface Projected {
    _id: string;
    name: string;
    version: number;
  }
  let model: mongoose.Model<Projected>;

  beforeAll(async () => {
    connection = (await mongoose.createConnection(mongoUrl).asPromise()).useDb(dbName);
    model = connection.model<Projected>(
      'Projected',
      new Schema<Projected>(
        { _id: String, name: String, version: Number },
        { versionKey: false, collection: 'projected' },
      ),
    );
  });
  afterAll(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  const stored = async (id: string) => model.findById(id).lean<Projected>();

  it('when changes arrive out of order and again, then the highest version stays and the hook runs only for winners', async () => {
    const forgotten: number[] = [];
    const apply = (version: number, name: string) =>
      applyVersioned(model, 'c1', { version, name }, () => forgotten.push(version));

    expect(await apply(2, 'second')).toBe(true);
    expect(await apply(1, 'first')).toBe(false);
    expect(await apply(2, 'second again')).toBe(false);
    expect(await stored('c1')).toEqual({ _id: 'c1', name: 'second', version: 2 });
    expect(await apply(3, 'third')).toBe(true);
    expect(await stored('c1')).toEqual({ _id: 'c1', name: 'third', version: 3 });
    expect(forgotten).toEqual([2, 3]);
  });

  it('when two first changes of one document are written at once, then one lands and the newer version is what stays', async () => {
    const results = await Promise.all([
      applyVersioned(model, 'c2', { version: 1, name: 'one' }),
      applyVersioned(model, 'c2', { version: 2, name: 'two' }),
    ]);
    expect(results).toContain(true);
    expect((await stored('c2'))?.version).toBe(2);
  });
});
