import { SpanKind, SpanStatusCode, TraceFlags, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator, suppressTracing } from '@opentelemetry/core';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import express from 'express';
import { get, request } from 'node:http';
import { traceOutgoingRequests } from './httpClientTracing';
import { listen, traceRequests } from './http';
import { contextOf, followUnsampledParents, inSpan, keepUnsampledTraceparents } from './tracing';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

describe('the spans of HTTP requests', () => {
  const exporter = new InMemorySpanExporter();
  const finishedIn: (string | undefined)[] = [];
  let server: Awaited<ReturnType<typeof listen>>;
  let stopOutgoing: () => void;

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(
      new TracerProvider({
        sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
        spanProcessors: [new SimpleSpanProcessor({ exporter })],
      }),
    );
    followUnsampledParents(true);
    stopOutgoing = traceOutgoingRequests();
    const app = express();
    app.use(traceRequests());
    app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
    const api = express.Router();
    // What the handler sees as its active span, once the body has been read.
    api.post('/things/:id', express.json(), (req, res) => {
      const active = trace.getActiveSpan()?.spanContext();
      // What a listener on the response (an audit line) sees as the response ends.
      res.once('finish', () => void finishedIn.push(trace.getActiveSpan()?.spanContext().spanId));
      setTimeout(() => res.status(req.body.fail ? 503 : 201).json({ active }), 5);
    });
    app.use('/api', api);
    // What a service called is given of the caller's trace.
    app.get('/echo', (req, res) => void res.json({ traceparent: req.headers.traceparent ?? null }));
    server = await listen(app, '127.0.0.1', 0);
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await server.close();
    stopOutgoing();
    followUnsampledParents(false);
    trace.disable();
    context.disable();
    propagation.disable();
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'lender-backend/1.0', ...headers },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      active: ((await response.json()) as { active?: Record<string, unknown> }).active,
    };
  };
  /** A body that arrives in two parts, the second after the request's handling has begun. */
  const postInParts = (path: string, parts: [string, string]) =>
    new Promise<{ status: number; active?: Record<string, unknown> }>((resolve, reject) => {
      const req = request(
        `${server.url}${path}`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, active: JSON.parse(text).active }));
        },
      );
      req.on('error', reject);
      req.write(parts[0]);
      setTimeout(() => req.end(parts[1]), 50);
    });
  const finished = async (count: number) => {
    for (let i = 0; i < 100 && exporter.getFinishedSpans().length < count; i++)
      await new Promise((r) => setTimeout(r, 10));
    return exporter.getFinishedSpans();
  };

  it('when a request starts a trace, then its span is named by the route it took, says what the request was without the values a query may hide, and is the span its handler works in after the body is read', async () => {
    const answer = await post('/api/things/42?q=Adaeze%20Okafor&limit=5', { name: 'x' });
    const [span, ...others] = await finished(1);

    expect(others).toEqual([]);
    expect(span).toMatchObject({
      name: 'POST /api/things/:id',
      kind: SpanKind.SERVER,
      status: { code: SpanStatusCode.UNSET },
      attributes: expect.objectContaining({
        'http.request.method': 'POST',
        'http.route': '/api/things/:id',
        'http.response.status_code': 201,
        'url.scheme': 'http',
        'url.path': '/api/things/42',
        'url.query': 'q=REDACTED&limit=5',
        'server.address': '127.0.0.1',
        'server.port': server.port,
        'user_agent.original': 'lender-backend/1.0',
      }),
    });
    expect(span!.parentSpanContext).toBeUndefined();
    expect(answer.active).toMatchObject({ traceId: span!.spanContext().traceId, spanId: span!.spanContext().spanId });
  });

  it('when the body arrives in parts, then the handler still works in the request’s span', async () => {
    const answer = await postInParts('/api/things/9', ['{"name":', '"x"}']);
    const [span] = await finished(1);

    expect(answer.status).toBe(201);
    expect(answer.active).toMatchObject({ spanId: span!.spanContext().spanId });
    expect(finishedIn.at(-1)).toBe(span!.spanContext().spanId);
  });

  it('when the caller’s trace is sampled, then the span is its child; when the response is a server error, then the span says so', async () => {
    const answer = await post('/api/things/7', { fail: true }, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` });
    const [span] = await finished(1);

    expect(answer.status).toBe(503);
    expect(span!.spanContext().traceId).toBe(TRACE_ID);
    expect(span!.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
  });

  it('when the caller’s trace is not sampled, then no span is recorded, and the handler still works in the caller’s trace, sampled flag off', async () => {
    const answer = await post('/api/things/7', {}, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` });

    expect(answer).toEqual({
      status: 201,
      active: expect.objectContaining({ traceId: TRACE_ID, traceFlags: TraceFlags.NONE }),
    });
    expect(await finished(1)).toEqual([]);
  });

  it('when the orchestrator asks for health, then no span is started', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await finished(1)).toEqual([]);
  });

  /** GET /echo?token=s3cret from within `ctx`: what the server was given of the trace. */
  const echo = (ctx: ReturnType<typeof context.active>, url = `${server.url}/echo?token=s3cret`) =>
    context.with(
      ctx,
      () =>
        new Promise<string | null>((resolve, reject) => {
          get(url, (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve((JSON.parse(text) as { traceparent: string | null }).traceparent));
          }).on('error', reject);
        }),
    );
  const traceWith = (flags: TraceFlags) =>
    trace.setSpan(context.active(), trace.wrapSpanContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: flags }));
  const clientSpans = () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);

  it('when a request goes out in a sampled trace, then it is a CLIENT span of that trace, its query values redacted, and the service called is given that span as its parent', async () => {
    const given = await echo(traceWith(TraceFlags.SAMPLED));
    const spans = await finished(2);
    const client = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    const called = spans.find((s) => s.kind === SpanKind.SERVER)!;

    expect(client).toMatchObject({
      name: 'GET',
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        'http.request.method': 'GET',
        'url.full': `${server.url}/echo?token=REDACTED`,
        'server.address': '127.0.0.1',
        'server.port': server.port,
        'http.response.status_code': 200,
      },
    });
    expect(client.spanContext().traceId).toBe(TRACE_ID);
    expect(client.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(given).toBe(`00-${TRACE_ID}-${client.spanContext().spanId}-01`);
    expect(called.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
  });

  it('when a request goes out in a trace not sampled, then it gets no span, and the service called is given that trace, sampled flag off', async () => {
    expect(await echo(traceWith(TraceFlags.NONE))).toBe(`00-${TRACE_ID}-${SPAN_ID}-00`);
    expect(await finished(1)).toEqual([]);
  });

  it('when a request goes out under a record not sampled whose traceparent was kept, then it carries that traceparent as it came, and nothing is recorded on either side', async () => {
    const traceparent = `00-${TRACE_ID}-${SPAN_ID}-00`;
    keepUnsampledTraceparents(true);
    try {
      expect(await echo(contextOf({ traceparent }))).toBe(traceparent);
    } finally {
      keepUnsampledTraceparents(false);
    }
    expect(await finished(1)).toEqual([]);
  });

  it('when a request goes out outside any trace, or where tracing is suppressed (the exporter’s own), then it carries nothing and gets no span', async () => {
    expect(await echo(suppressTracing(traceWith(TraceFlags.SAMPLED)))).toBeNull();
    expect(await echo(context.active())).toBeNull();
    await finished(2);
    expect(clientSpans()).toEqual([]);
  });

  it('when a request in a sampled trace fails, then its span says how, as an error', async () => {
    const closed = await listen(express(), '127.0.0.1', 0);
    await closed.close();
    await expect(echo(traceWith(TraceFlags.SAMPLED), `${closed.url}/echo`)).rejects.toThrow();
    const [span] = await finished(1);

    expect(span).toMatchObject({
      kind: SpanKind.CLIENT,
      status: { code: SpanStatusCode.ERROR },
      attributes: expect.objectContaining({ 'error.type': 'ECONNREFUSED' }),
    });
  });

  it('when a request goes out in a span of ours, then the span is its parent', async () => {
    await inSpan('webhook attempt', { parent: traceWith(TraceFlags.SAMPLED) }, () => echo(context.active()));
    const spans = await finished(3);
    const attempt = spans.find((s) => s.name === 'webhook attempt')!;

    expect(clientSpans().map((s) => s.parentSpanContext?.spanId)).toEqual([attempt.spanContext().spanId]);
  });
});
