import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook as the receiver saw it. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: { event: string; event_id: string; timestamp: string; data: Record<string, unknown> };
  /** The HTTP status the receiver answered with. */
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Decides the status of each delivery (default 200). */
  answerWith(decide: (body: ReceivedWebhook['body'], attempt: number) => number): void;
  close(): Promise<void>;
}

/** A local HTTP endpoint on a free port that records every webhook posted to it. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let decide: (body: ReceivedWebhook['body'], attempt: number) => number = () => 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedWebhook['body'];
      const attempt = received.filter((w) => w.body.event_id === body.event_id).length + 1;
      const status = decide(body, attempt);
      received.push({ headers: req.headers, body, answered: status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/provider/webhooks/mono`,
    received,
    answerWith: (next) => {
      decide = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
