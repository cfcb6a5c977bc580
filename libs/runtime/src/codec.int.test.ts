import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { z } from 'zod';
import { ServiceError } from './errors';
import { createCodec } from './kafka';

/**
 * A registry that accepts connections and never answers (a hung process, a half-open
 * connection): every publish and every consume of a topic whose schema id is not known yet
 * waits on it, so a call that waits forever wedges the handler, and with it its partition,
 * while /readyz (broker and database) still answers 200.
 */
const Greeting = z.object({ text: z.string() });
let silent: Server;
const sockets: Socket[] = [];
let url: string;

beforeAll(async () => {
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

it('when the registry never answers, then encoding fails after the registry timeout instead of waiting forever', async () => {
  const codec = createCodec(url, () => Greeting, { registryTimeoutMs: 300 });
  await expect(codec.encode('greetings', { text: 'hello' })).rejects.toMatchObject({
    message: expect.stringMatching(/timeout/i),
  });
});

it('when the registry never answers, then decoding a value fails after the registry timeout instead of waiting forever', async () => {
  const codec = createCodec(url, () => Greeting, { registryTimeoutMs: 300 });
  // Confluent wire format: magic byte 0, then a schema id this codec has never seen.
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 42]), Buffer.from('{"text":"hello"}')]);
  // Retriable: the consumer fetches the message again instead of dead-lettering a sound one.
  await expect(codec.decode('greetings', framed)).rejects.toMatchObject({
    retriable: true,
    message: expect.stringMatching(/timeout/i),
  });
});

it('when the registry answers that a schema id does not exist, then decoding fails for good (the message is poison)', async () => {
  const codec = createCodec(process.env.SCHEMA_REGISTRY_URL!, () => Greeting);
  const unknownId = Buffer.alloc(4);
  unknownId.writeInt32BE(2_000_000_000);
  const framed = Buffer.concat([Buffer.from([0]), unknownId, Buffer.from('{"text":"hello"}')]);
  const error = await codec.decode('greetings', framed).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ status: 404 });
  // Not a retriable ServiceError: the consumer dead-letters it instead of fetching it forever.
  expect(error).not.toBeInstanceOf(ServiceError);
});

it('when the registry answers a registration only on a second try, then encoding goes on with the id it gives', async () => {
  // A registry busy writing its own log: the first registration gets no answer in time.
  let registrations = 0;
  const held: import('node:http').ServerResponse[] = [];
  const registry = createHttpServer((request, response) => {
    if (request.method === 'GET' && request.url?.startsWith('/config/')) {
      response.setHeader('content-type', 'application/vnd.schemaregistry.v1+json');
      response.end(JSON.stringify({ compatibilityLevel: 'BACKWARD' }));
    } else if (request.method === 'POST' && request.url?.includes('/versions')) {
      registrations += 1;
      if (registrations === 1) return void held.push(response);
      response.setHeader('content-type', 'application/vnd.schemaregistry.v1+json');
      response.end(JSON.stringify({ id: 7 }));
    } else {
      response.statusCode = 404;
      response.end('{}');
    }
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  try {
    const port = (registry.address() as { port: number }).port;
    const codec = createCodec(`http://127.0.0.1:${port}`, () => Greeting, { registryTimeoutMs: 300 });
    const encoded = await codec.encode('greetings', { text: 'hello' });
    expect([...encoded.subarray(0, 5)]).toEqual([0, 0, 0, 0, 7]);
    expect(registrations).toBe(2);
  } finally {
    for (const response of held) response.destroy();
    registry.closeAllConnections();
    await new Promise((resolve) => registry.close(resolve));
  }
});
