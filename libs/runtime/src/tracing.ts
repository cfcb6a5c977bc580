import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import {
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';

/**
 * Spans of our own (Kafka hops, webhook attempts, deadline firings) and the trace context on
 * Kafka records, through the OpenTelemetry API only. Without a started SDK (see
 * `startTracing`) every call here is the API's no-op: no span is recorded and no header added.
 */
export function tracer(): Tracer {
  // One tracer per registered provider: asking the provider for it again on every span costs a
  // name lookup each time, and a test or a restarted SDK may register another provider.
  const provider = trace.getTracerProvider();
  if (provider !== tracerOf.provider) {
    tracerOf.provider = provider;
    tracerOf.tracer = provider.getTracer('@loan/runtime');
  }
  return tracerOf.tracer!;
}

const tracerOf: { provider?: TracerProvider; tracer?: Tracer } = {};

/** The W3C trace-context headers (`traceparent`, `tracestate`). */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

let pseudonymKey: KeyObject | undefined;

/**
 * Sets the key of the lender pseudonym spans carry as `loan.client_id`: the one of the
 * analytics stream (HMAC-SHA256 of `lender:<clientId>` under ANALYTICS_KEY), so a trace and an
 * analyst's record of one lender can be put side by side. Without a key no span names the lender.
 */
export function setTracePseudonymKey(key: string | undefined): void {
  pseudonymKey = key ? createSecretKey(Buffer.from(key, 'utf8')) : undefined;
  pseudonyms.clear();
}

/** Pseudonyms already computed: nearly every span names a lender, and lenders are few. */
const pseudonyms = new Map<string, string>();
const PSEUDONYMS_KEPT = 1_000;

/** The lender's pseudonym as the analytics stream writes it, or undefined without a key. */
export function lenderPseudonym(clientId: string): string | undefined {
  if (!pseudonymKey) return undefined;
  let pseudonym = pseudonyms.get(clientId);
  if (pseudonym === undefined) {
    pseudonym = createHmac('sha256', pseudonymKey).update(`lender:${clientId}`).digest('base64url');
    if (pseudonyms.size >= PSEUDONYMS_KEPT) pseudonyms.clear();
    pseudonyms.set(clientId, pseudonym);
  }
  return pseudonym;
}

/**
 * Starts a span whose attributes are set only when it is recorded: the SDK checks and copies
 * the attributes given to `startSpan` before its sampler decides, which at the default sampling
 * (a tenth of new traces) was work thrown away for nine spans in ten. Given as a function, they
 * are not even worked out for a span that is not recorded.
 */
export function startSpan(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes | (() => Attributes); links?: Link[] },
  parent: Context,
): Span {
  const unsampled = unsampledParentOf(parent);
  if (unsampled) return unsampled;
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.links ? { links: options.links } : {}) },
    parent,
  );
  const { attributes } = options;
  if (attributes && span.isRecording())
    span.setAttributes(typeof attributes === 'function' ? attributes() : attributes);
  return span;
}

let unsampledParentsDecide = false;

/**
 * Whether the sampler leaves every child of a span not sampled unsampled too, as each
 * `parentbased_*` sampler does (the default, `DEFAULT_SAMPLER`, is one): set by `startTracing`
 * from the sampler it starts with. Then `startSpan` under such a parent asks the SDK nothing and
 * gives the parent's own span back, as the API does without an SDK: the SDK would have run its
 * sampler, made an id and counted the span, all for a span it drops, and at the default sampling
 * that is nine spans in ten. What goes on (a record's `traceparent`, an outgoing request's)
 * still names the trace, sampled flag off, so every service downstream follows the decision.
 */
export function followUnsampledParents(on: boolean): void {
  unsampledParentsDecide = on;
}

/** The parent's span when it is not sampled and the sampler follows it (see `followUnsampledParents`). */
function unsampledParentOf(parent: Context): Span | undefined {
  if (!unsampledParentsDecide) return undefined;
  const span = trace.getSpan(parent);
  if (!span) return undefined;
  if (traceparentReadOf(span)) return span;
  if (span.isRecording()) return undefined;
  const ids = span.spanContext();
  return ids.traceFlags & TraceFlags.SAMPLED || !isSpanContextValid(ids) ? undefined : span;
}

/**
 * Whether a `traceparent` of version 00 says its trace is not sampled (its flags' lowest bit
 * off), read without parsing the rest; any other form is left to the propagator.
 */
function notSampled(traceparent: string | undefined): boolean {
  if (traceparent?.length !== 55 || !traceparent.startsWith('00-')) return false;
  const flags = Number.parseInt(traceparent.slice(53), 16);
  return Number.isInteger(flags) && (flags & TraceFlags.SAMPLED) === 0;
}

/** The span of work no trace records: ending it, or giving it attributes, does nothing. */
const UNRECORDED = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** The parent with `span` as its active span (the parent itself when that span is already its own). */
export function withSpan(parent: Context, span: Span): Context {
  return trace.getSpan(parent) === span ? parent : trace.setSpan(parent, span);
}

/**
 * `loan.application_id` and `loan.client_id` (the lender's pseudonym) of a record that names
 * them at its top level (facts, commands, results and public events all do); never more.
 */
export function loanAttributes(value: unknown): Attributes {
  const attributes: Attributes = {};
  if (typeof value !== 'object' || value === null) return attributes;
  const { applicationId, clientId } = value as { applicationId?: unknown; clientId?: unknown };
  if (typeof applicationId === 'string') attributes['loan.application_id'] = applicationId;
  const pseudonym = typeof clientId === 'string' ? lenderPseudonym(clientId) : undefined;
  if (pseudonym) attributes['loan.client_id'] = pseudonym;
  return attributes;
}

/**
 * Names the application and the lender (pseudonym) on the active span: a request handler's,
 * once it knows which application the request is about.
 */
export function annotateActiveSpan(value: { applicationId?: unknown; clientId?: unknown }): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(loanAttributes(value));
}

/**
 * Headers carrying the active context (or `ctx`) beside the given ones: what an outbox entry
 * stores so that its record, published now or by a sweep after a crash, continues the trace
 * of the work that wrote it. The given headers when there is no context to carry.
 */
export function withTraceContext(
  headers?: Record<string, string>,
  ctx: Context = context.active(),
): Record<string, string> | undefined {
  const kept = traceparentKept(ctx);
  if (kept) return { ...headers, traceparent: kept };
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  if (Object.keys(carrier).length === 0) return headers;
  return { ...headers, ...carrier };
}

let unsampledTraceparentsKept = false;

/**
 * Whether a `traceparent` of a trace not sampled is read and carried on by the short way: set by
 * `startTracing` when the sampler follows parents and W3C trace context is the only propagator
 * (the defaults). Nearly every record and request is of a trace not sampled (nine in ten at the
 * default sampling), and for each of them the propagator's extract and inject, through the API's
 * globals, were most of what tracing still cost a message handled. Read by the short way, such a
 * context's ids keep the header they came from, and what the work under it sends on (an
 * outbox entry, a record, an outgoing request) carries that header as it was. Anything else (a
 * sampled trace, another version or flags, a `tracestate`) goes through the propagator.
 */
export function keepUnsampledTraceparents(on: boolean): void {
  unsampledTraceparentsKept = on;
}

/** Where the ids of a context read by the short way keep the header they came from. */
const TRACEPARENT_READ = Symbol('traceparent read');
type IdsRead = SpanContext & { [TRACEPARENT_READ]?: string };
const traceparentReadOf = (span: Span): string | undefined => (span.spanContext() as IdsRead)[TRACEPARENT_READ];

/** Version 00, valid ids (not all zeros), flags 00: a trace not sampled, nothing else said. */
const UNSAMPLED_TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-00$/;

/** The context a record's (or a request's) headers carry (the root context when they carry none). */
export function contextOf(headers: Record<string, string | string[] | undefined> | undefined): Context {
  const traceparent = headers?.traceparent;
  if (!traceparent) return ROOT_CONTEXT;
  if (unsampledTraceparentsKept && typeof traceparent === 'string' && headers.tracestate === undefined) {
    const ids = UNSAMPLED_TRACEPARENT.exec(traceparent);
    if (ids) {
      const read: IdsRead = {
        traceId: ids[1]!,
        spanId: ids[2]!,
        traceFlags: TraceFlags.NONE,
        isRemote: true,
        [TRACEPARENT_READ]: traceparent,
      };
      return trace.setSpanContext(ROOT_CONTEXT, read);
    }
  }
  return propagation.extract(ROOT_CONTEXT, headers);
}

/**
 * The `traceparent` to carry for work in `ctx` when its span is one read by the short way (see
 * `keepUnsampledTraceparents`): the header it came from. Undefined otherwise, for the propagator.
 */
export function traceparentKept(ctx: Context): string | undefined {
  if (!unsampledTraceparentsKept) return undefined;
  const span = trace.getSpan(ctx);
  return span && !isTracingSuppressed(ctx) ? traceparentReadOf(span) : undefined;
}

/** A link to the span the headers' context names, or none. */
export function linkTo(headers: Record<string, string> | undefined): Link[] {
  const span = trace.getSpanContext(contextOf(headers));
  return span && isSpanContextValid(span) ? [{ context: span }] : [];
}

/**
 * The PRODUCER span of a record about to be sent, and its headers: child of the context the
 * record carries (the work that wrote an outbox entry) or else of the active one, with that
 * context replaced by the span's own.
 */
export function startProducerSpan(topic: string, message: { value: unknown; headers?: Record<string, string> }) {
  // A record of a trace not sampled goes on as it is, its context not even read.
  if (unsampledParentsDecide && notSampled(message.headers?.traceparent))
    return { span: UNRECORDED, headers: message.headers };
  const parent = message.headers?.traceparent ? contextOf(message.headers) : context.active();
  const span = startSpan(
    `send ${topic}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: () => ({
        'messaging.system': 'kafka',
        'messaging.operation.type': 'send',
        'messaging.destination.name': topic,
        ...loanAttributes(message.value),
      }),
    },
    parent,
  );
  // Under a record's context not sampled, the span is that context's own: its headers go on as they are.
  if (message.headers?.traceparent && span === trace.getSpan(parent)) return { span, headers: message.headers };
  const headers = withTraceContext(withoutTraceContext(message.headers), withSpan(parent, span));
  return { span, headers };
}

function withoutTraceContext(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers?.traceparent && !headers?.tracestate) return headers;
  const { traceparent: _parent, tracestate: _state, ...rest } = headers;
  return rest;
}

/** Ends a span with the outcome of the work it covered. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}

/**
 * Runs `work` in a span of its own (child of the active context, or of `options.parent`),
 * ending it with the outcome.
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; links?: Link[]; parent?: Context },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = startSpan(name, options, parent);
  try {
    const result = await context.with(withSpan(parent, span), () => work(span));
    endSpan(span);
    return result;
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
}

/**
 * Runs `work` outside every trace: the database commands it sends get no span, as commands
 * outside any trace get none.
 */
export function outsideTraces<T>(work: () => T): T {
  return context.with(ROOT_CONTEXT, work);
}

/**
 * Runs `work`, done for the requests whose contexts are given (one bulk write of their
 * applications' documents). For one request, in its context: the work is that request's. For
 * several, in a span that starts a trace of its own, linked to the span of each request's
 * context: the batch is in none of their traces alone, and each of them points to it; its
 * database command is a child of this span. With none of them in a trace (or, when the sampler
 * follows parents, none in a sampled one), it runs outside every trace.
 */
export function inBatchSpan<T>(
  name: string,
  contexts: readonly Context[],
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (contexts.length === 1) return context.with(contexts[0]!, work);
  const links: Link[] = [];
  const linked = new Set<string>();
  let sampled = false;
  for (const ctx of contexts) {
    const span = trace.getSpanContext(ctx);
    if (!span || !isSpanContextValid(span) || linked.has(span.spanId)) continue;
    linked.add(span.spanId);
    links.push({ context: span });
    if (span.traceFlags & TraceFlags.SAMPLED) sampled = true;
  }
  // With the sampler following parents, a batch for requests none of whose traces is sampled
  // has no span either: it would link only to spans no one records.
  if (links.length === 0 || (unsampledParentsDecide && !sampled)) return outsideTraces(work);
  return inSpan(name, { parent: ROOT_CONTEXT, links, attributes }, () => work());
}

/** `trace_id` and `span_id` of a span (none for the API's no-op span). */
export function traceIdsOf(span: Span | undefined): { trace_id?: string; span_id?: string } {
  const ids = span?.spanContext();
  if (!ids || !isSpanContextValid(ids)) return {};
  return { trace_id: ids.traceId, span_id: ids.spanId };
}

/** `trace_id` and `span_id` of the active span, for a log line written inside one. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  return traceIdsOf(trace.getActiveSpan());
}

export { ROOT_CONTEXT, SpanKind };
