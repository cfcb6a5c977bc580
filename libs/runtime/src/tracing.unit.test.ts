import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { createLogger } from './logger';
import {
  contextOf,
  followUnsampledParents,
  inBatchSpan,
  keepUnsampledTraceparents,
  inSpan,
  linkTo,
  lenderPseudonym,
  loanAttributes,
  setTracePseudonymKey,
  startProducerSpan,
  withTraceContext,
} from './tracing';
import {
  REDACTED_SERVER_QUERY_PARAMS,
  applyTracingDefaults,
  commandShape,
  dbCommandSpansWanted,
  samplerFollowsUnsampledParents,
  tracingWanted,
} from './tracingSdk';
import { withQueryValuesRedacted } from './httpClientTracing';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const inSpanContext = <T>(work: () => T): T =>
  context.with(
    trace.setSpan(
      context.active(),
      trace.wrapSpanContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED }),
    ),
    work,
  );

describe('tracingWanted', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, false],
  ])('when the environment is %j, then tracing is wanted: %s', (env, wanted) => {
    expect(tracingWanted(env)).toBe(wanted);
  });
});

describe('without a started SDK', () => {
  it('when an outbox entry takes the active context, then its headers are what was given, nothing added', () => {
    expect(withTraceContext({ 'x-fact-type': 'AccountLinked' })).toEqual({ 'x-fact-type': 'AccountLinked' });
    expect(withTraceContext()).toBeUndefined();
  });

  it('when a line is logged, then it carries no trace ids', () => {
    const lines: string[] = [];
    createLogger('test', 'info', { write: (line: string) => void lines.push(line) }).info('hello');
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('trace_id');
  });
});

describe('with a context manager and the W3C propagator', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    context.disable();
    propagation.disable();
  });

  it('when a line is logged inside a span, then it carries the trace and span ids', async () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(line) });
    await inSpanContext(async () => {
      await Promise.resolve();
      logger.child({ component: 'x' }).info('inside');
    });
    logger.info('outside');
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'inside', trace_id: TRACE_ID, span_id: SPAN_ID });
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('trace_id');
  });

  it('when an outbox entry is written inside a span, then its headers carry that context, and reading them gives it back', () => {
    const headers = inSpanContext(() => withTraceContext({ 'x-fact-type': 'AccountLinked' }))!;
    expect(headers).toEqual({ 'x-fact-type': 'AccountLinked', traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` });
    expect(trace.getSpanContext(contextOf(headers))).toMatchObject({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      isRemote: true,
    });
    expect(linkTo(headers)).toEqual([{ context: expect.objectContaining({ traceId: TRACE_ID, spanId: SPAN_ID }) }]);
    expect(linkTo({})).toEqual([]);
  });
});

describe('loan attributes', () => {
  afterEach(() => setTracePseudonymKey(undefined));

  it('when a record names its application and lender, then spans carry the application id and the lender pseudonym of the analytics stream, never the id', () => {
    setTracePseudonymKey('k');
    const attributes = loanAttributes({ applicationId: 'app-1', clientId: 'client-1', email: 'a@b.c' });
    expect(attributes).toEqual({ 'loan.application_id': 'app-1', 'loan.client_id': lenderPseudonym('client-1') });
    expect(attributes['loan.client_id']).not.toContain('client-1');
  });

  it('when the key changes, then the pseudonym follows it: one kept from the previous key is never given', () => {
    setTracePseudonymKey('k');
    const underK = lenderPseudonym('client-1');
    expect(lenderPseudonym('client-1')).toBe(underK);
    setTracePseudonymKey('another key');
    expect(lenderPseudonym('client-1')).not.toBe(underK);
    setTracePseudonymKey('k');
    expect(lenderPseudonym('client-1')).toBe(underK);
  });

  it('when no pseudonym key is set, then the lender is left out', () => {
    expect(loanAttributes({ applicationId: 'app-1', clientId: 'client-1' })).toEqual({
      'loan.application_id': 'app-1',
    });
  });
});

describe('what an outgoing request span records of its URL', () => {
  it('when the URL has a query, then every value is redacted and the names stay; a URL without one is kept as it is', () => {
    expect(withQueryValuesRedacted('https://hooks.lender.example/loan?token=s3cret&tenant=acme#x')).toBe(
      'https://hooks.lender.example/loan?token=REDACTED&tenant=REDACTED',
    );
    expect(withQueryValuesRedacted('https://hooks.lender.example/loan')).toBe('https://hooks.lender.example/loan');
    expect(REDACTED_SERVER_QUERY_PARAMS).toContain('q');
  });
});

describe('a MongoDB command on a span', () => {
  it('when a command writes documents, then the span records its fields, never a value, arrays by their length, and stays small however large the documents', () => {
    const transactions = Array.from({ length: 5_000 }, (_, i) => ({
      narration: `TRF FROM ADAEZE NWOSU ${i}`,
      amount: i,
    }));
    const command = {
      update: 'bank_data',
      updates: [
        { q: { _id: 'acc-1', clientId: 'c-1' }, u: { $set: { transactions, holder: 'Adaeze Nwosu' } }, upsert: true },
      ],
      ordered: true,
      lsid: { id: 'x' },
    };
    const text = JSON.stringify(commandShape(command));
    expect(JSON.parse(text)).toEqual({ update: '?', updates: '[1]', ordered: '?', lsid: { id: '?' } });
    expect(text).not.toMatch(/ADAEZE|Adaeze|acc-1|bank_data/);
    expect(
      JSON.stringify(
        commandShape({ find: 'applications', filter: { searchTokens: { $all: ['a', 'b'] }, status: 'LINKED' } }),
      ),
    ).toBe('{"find":"?","filter":{"searchTokens":{"$all":"[2]"},"status":"?"}}');
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i]));
    expect(Object.keys(commandShape(wide) as object)).toHaveLength(17);
  });
});

describe('the tracer of our own spans', () => {
  afterEach(() => trace.disable());

  it('when providers are registered one after another, then each span goes to the provider registered when it started, none before the first', async () => {
    const recorder = () => {
      const exporter = new InMemorySpanExporter();
      return { exporter, provider: new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }) };
    };
    await inSpan('before any provider', {}, async () => undefined);
    const first = recorder();
    trace.setGlobalTracerProvider(first.provider);
    await inSpan('under the first', {}, async () => undefined);
    trace.disable();
    const second = recorder();
    trace.setGlobalTracerProvider(second.provider);
    await inSpan('under the second', {}, async () => undefined);

    expect(first.exporter.getFinishedSpans().map((s) => s.name)).toEqual(['under the first']);
    expect(second.exporter.getFinishedSpans().map((s) => s.name)).toEqual(['under the second']);
  });
});

describe('spans under a parent not sampled', () => {
  let exporter: InMemorySpanExporter;
  const register = (sampler: Sampler) => {
    exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    );
  };
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterEach(() => {
    followUnsampledParents(false);
    trace.disable();
  });
  afterAll(() => {
    context.disable();
    propagation.disable();
  });
  const record = (flags: string) => ({
    traceparent: `00-${TRACE_ID}-${SPAN_ID}-${flags}`,
    'x-fact-type': 'AccountLinked',
  });

  it('when the sampler follows parents, then work under a record not sampled gets no span of its own, and what it sends on names the same trace, still not sampled', async () => {
    register(new ParentBasedSampler({ root: new AlwaysOnSampler() }));
    followUnsampledParents(true);
    const parent = contextOf(record('00'));

    const written = await inSpan('process loan.applications.facts', { parent }, async (span) => {
      expect(span).toBe(trace.getSpan(parent));
      return withTraceContext({ 'x-fact-type': 'ApplicationDecided' });
    });
    expect(written).toEqual({ 'x-fact-type': 'ApplicationDecided', traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` });
    const given = record('00');
    expect(startProducerSpan('loan.events.v1', { value: {}, headers: given }).headers).toBe(given);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('when the sampler follows parents, then under a sampled record each piece of work is a span of its own, child of the record', async () => {
    register(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    followUnsampledParents(true);

    const headers = await inSpan('process loan.applications.facts', { parent: contextOf(record('01')) }, async () => {
      const sent = startProducerSpan('loan.events.v1', { value: {} });
      sent.span.end();
      return sent.headers;
    });
    const [send, processed] = exporter.getFinishedSpans();
    expect(processed!.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(send!.parentSpanContext?.spanId).toBe(processed!.spanContext().spanId);
    expect(headers).toEqual({ traceparent: `00-${TRACE_ID}-${send!.spanContext().spanId}-01` });
  });

  it('when the sampler follows parents, then work done for several requests is a span only when one of them is sampled, linked to each', async () => {
    register(new ParentBasedSampler({ root: new AlwaysOnSampler() }));
    followUnsampledParents(true);
    const other = (flags: string) => contextOf({ traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-${flags}` });

    await inBatchSpan('save timelines', [contextOf(record('00')), other('00')], {}, async () => undefined);
    expect(exporter.getFinishedSpans()).toEqual([]);

    await inBatchSpan('save timelines', [contextOf(record('00')), other('01')], {}, async () => undefined);
    const [batch, ...rest] = exporter.getFinishedSpans();
    expect(rest).toEqual([]);
    expect(batch!.parentSpanContext).toBeUndefined();
    expect(batch!.links.map((l) => l.context.spanId)).toEqual([SPAN_ID, '2'.repeat(16)]);
  });

  const withoutFactType = ({ 'x-fact-type': _type, ...rest }: Record<string, string>) => rest;
  it.each([
    [`00-${TRACE_ID}-${SPAN_ID}-00`, undefined],
    [`00-${TRACE_ID}-${SPAN_ID}-01`, undefined],
    [`00-${TRACE_ID}-${SPAN_ID}-00`, 'vendor=1'],
    [`00-${TRACE_ID}-${SPAN_ID}-02`, undefined],
    [`01-${TRACE_ID}-${SPAN_ID}-00-extra`, undefined],
    [`00-${'0'.repeat(32)}-${SPAN_ID}-00`, undefined],
    [`00-${TRACE_ID}-${'0'.repeat(16)}-00`, undefined],
    [`00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-00`, undefined],
    [` 00-${TRACE_ID}-${SPAN_ID}-00`, undefined],
    ['garbage', undefined],
  ])(
    'when traceparents not sampled are kept, then %j (tracestate %j) is read as the propagator reads it, and carried on as the propagator writes it',
    async (traceparent, tracestate) => {
      register(new ParentBasedSampler({ root: new AlwaysOnSampler() }));
      const headers: Record<string, string> = { traceparent, ...(tracestate ? { tracestate } : {}) };
      const expected = propagation.extract(context.active(), headers);
      const expectedHeaders = withTraceContext({ 'x-fact-type': 'AccountLinked' }, expected);
      followUnsampledParents(true);
      keepUnsampledTraceparents(true);
      try {
        const parent = contextOf(headers);
        const read = (ctx: typeof parent) => {
          const ids = trace.getSpanContext(ctx);
          if (!ids) return ids;
          const { traceId, spanId, traceFlags, isRemote, traceState } = ids;
          return { traceId, spanId, traceFlags, isRemote, traceState: traceState?.serialize() };
        };
        expect(read(parent)).toEqual(read(expected));
        expect(withTraceContext({ 'x-fact-type': 'AccountLinked' }, parent)).toEqual(expectedHeaders);
        const sent = await inSpan('process loan.applications.facts', { parent }, async () =>
          startProducerSpan('loan.events.v1', { value: {} }),
        );
        sent.span.end();
        const recorded = exporter.getFinishedSpans();
        // Not sampled: no span anywhere, and the record names the trace as it came. Sampled, or no
        // trace read at all (a new one, which this sampler samples): the SDK's spans.
        const ids = trace.getSpanContext(expected);
        if (ids && !(ids.traceFlags & TraceFlags.SAMPLED)) {
          expect(recorded).toEqual([]);
          expect(sent.headers).toEqual(expectedHeaders?.traceparent ? withoutFactType(expectedHeaders) : undefined);
        } else expect(recorded.length).toBeGreaterThan(0);
      } finally {
        keepUnsampledTraceparents(false);
      }
    },
  );

  it('when traceparents not sampled are kept, then a record not sampled and what it sends on ask the propagator nothing; a sampled one still does', async () => {
    register(new ParentBasedSampler({ root: new AlwaysOnSampler() }));
    const w3c = new W3CTraceContextPropagator();
    const asked: string[] = [];
    propagation.disable();
    propagation.setGlobalPropagator({
      inject: (ctx, carrier, setter) => void (asked.push('inject'), w3c.inject(ctx, carrier, setter)),
      extract: (ctx, carrier, getter) => (asked.push('extract'), w3c.extract(ctx, carrier, getter)),
      fields: () => w3c.fields(),
    });
    followUnsampledParents(true);
    keepUnsampledTraceparents(true);
    try {
      const carried = withTraceContext({}, contextOf(record('00')));
      expect(carried).toEqual({ traceparent: record('00').traceparent });
      expect(asked).toEqual([]);
      withTraceContext({}, contextOf(record('01')));
      expect(asked).toEqual(['extract', 'inject']);
    } finally {
      keepUnsampledTraceparents(false);
      propagation.disable();
      propagation.setGlobalPropagator(w3c);
    }
  });

  it('when the sampler does not follow parents, then the SDK decides for each span, even under a record not sampled', async () => {
    register(new AlwaysOnSampler());
    await inSpan('process loan.applications.facts', { parent: contextOf(record('00')) }, async () => undefined);
    expect(exporter.getFinishedSpans().map((s) => s.parentSpanContext?.spanId)).toEqual([SPAN_ID]);
  });

  it.each([
    ['parentbased_traceidratio', true],
    ['parentbased_always_on', true],
    [' parentbased_always_off ', true],
    ['traceidratio', false],
    ['always_on', false],
    [undefined, false],
  ])('when OTEL_TRACES_SAMPLER is %j, then the sampler follows a parent not sampled: %s', (sampler, follows) => {
    expect(samplerFollowsUnsampledParents(sampler)).toBe(follows);
  });
});

describe('tracing defaults', () => {
  it('when no sampler is named, then a tenth of new traces is sampled and a caller’s sampled trace is followed, carried by W3C trace context alone unless propagators are named', () => {
    const env: Record<string, string | undefined> = { SERVICE_NAME: 'gateway' };
    applyTracingDefaults(env);
    expect(env).toMatchObject({
      OTEL_SERVICE_NAME: 'gateway',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_PROPAGATORS: 'tracecontext',
    });
    const named: Record<string, string | undefined> = { OTEL_PROPAGATORS: 'tracecontext,baggage' };
    applyTracingDefaults(named);
    expect(named.OTEL_PROPAGATORS).toBe('tracecontext,baggage');
  });

  it('when a sampler is named, then it and its argument are kept as given', () => {
    const env: Record<string, string | undefined> = { OTEL_TRACES_SAMPLER: 'parentbased_always_on' };
    applyTracingDefaults(env);
    expect(env.OTEL_TRACES_SAMPLER).toBe('parentbased_always_on');
    expect(env.OTEL_TRACES_SAMPLER_ARG).toBeUndefined();
    const ratio: Record<string, string | undefined> = {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
    };
    applyTracingDefaults(ratio);
    expect(ratio.OTEL_TRACES_SAMPLER_ARG).toBe('0.5');
  });

  it('then database-command spans are off unless TRACE_DB_COMMANDS=true', () => {
    expect(dbCommandSpansWanted({})).toBe(false);
    expect(dbCommandSpansWanted({ TRACE_DB_COMMANDS: 'false' })).toBe(false);
    expect(dbCommandSpansWanted({ TRACE_DB_COMMANDS: 'TRUE' })).toBe(true);
  });
});
