import { ROOT_CONTEXT, TraceFlags, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** Trace and span ids of requests a test runs work in (`inTrace(i, ...)`). */
export const TRACE_IDS = [
  '0af7651916cd43dd8448eb211c80319c',
  '1af7651916cd43dd8448eb211c80319c',
  '2af7651916cd43dd8448eb211c80319c',
] as const;
export const SPAN_IDS = ['b7ad6b7169203331', 'c7ad6b7169203331', 'd7ad6b7169203331'] as const;

/**
 * Spans recorded for the tests of one describe block, as a started SDK would record them: a
 * context manager and a tracer provider whose ended spans stay in memory (`exporter`), emptied
 * before each test. `inTrace(i, work)` runs work inside request i's span.
 */
export function recordTraces() {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  });
  afterAll(() => {
    context.disable();
    trace.disable();
  });
  beforeEach(() => exporter.reset());

  const inTrace = <T>(i: number, work: () => T): T =>
    context.with(
      trace.setSpan(
        ROOT_CONTEXT,
        trace.wrapSpanContext({ traceId: TRACE_IDS[i]!, spanId: SPAN_IDS[i]!, traceFlags: TraceFlags.SAMPLED }),
      ),
      work,
    );
  /** The trace id of the span active now, if any. */
  const activeTraceId = (): string | undefined => trace.getActiveSpan()?.spanContext().traceId;
  return { exporter, inTrace, activeTraceId };
}
