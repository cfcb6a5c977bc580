// The gateway bench's baseline: a bare express app in a process of its own (like the gateway),
// parsing the same JSON body and answering like initiate, with no validation, Kafka or database.
// Prints the port it listens on; stops on SIGTERM.
import { randomUUID } from 'node:crypto';
import { requireFromRoot } from './util.mjs';

const express = requireFromRoot('express');
const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '16kb' }));
app.post('/api/applications/initiate', (req, res) => {
  res.status(201).json({
    applicationId: randomUUID(),
    applicantId: randomUUID(),
    widgetUrl: `http://127.0.0.1:8090/widget/${randomUUID()}`,
    status: 'PENDING_LINKING',
    resumed: false,
    echo: typeof req.body?.idempotencyKey === 'string',
  });
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(`LISTENING ${server.address().port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Never outlive the benchmark that started it.
setTimeout(() => process.exit(0), 10 * 60_000).unref();
process.on('disconnect', () => process.exit(0));
