import { SpanKind, SpanStatusCode, context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span, TextMapSetter } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { startSpan, traceparentKept, withSpan } from './tracing';

/** The http module's channels of a request made: created (headers not yet sent), answered, failed. */
const CREATED = 'http.client.request.created';
const ANSWERED = 'http.client.response.finish';
const FAILED = 'http.client.request.error';

const onRequest: TextMapSetter<ClientRequest> = {
  set: (request, name, value) => {
    if (!request.headersSent) request.setHeader(name, value);
  },
};

/**
 * The CLIENT span of each HTTP request a service makes within a sampled trace (a provider's
 * API, a bureau, a lender's webhook endpoint), and the trace context on the request, from the
 * http module's diagnostics channels rather than the HTTP instrumentation: that one parsed every
 * request's URL and options before it could tell whether a span was wanted, and hooked every
 * `require` of the process to patch the module (kafkajs requires a module for each request it
 * sends the broker). Here a request outside a sampled trace costs a look at the active span:
 * - in a sampled trace, a span named by the method, `url.full` with every query value redacted,
 *   its status from the response, ended when the response has been read or the request failed;
 * - in a trace not sampled, no span (with a `parentbased_*` sampler, the default), and the
 *   request carries that trace's `traceparent`, sampled flag off, so that a service called
 *   follows the decision rather than starting a trace;
 * - outside any trace (the registry's client, the lag probe) or where tracing is suppressed (the
 *   exporter's own requests), nothing.
 *
 * Returns what stops it.
 */
export function traceOutgoingRequests(): () => void {
  const open = new WeakMap<ClientRequest, Span>();

  const created = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    const active = context.active();
    const ids = trace.getSpan(active)?.spanContext();
    if (!ids || !isSpanContextValid(ids) || isTracingSuppressed(active)) return;
    // Under a parent not sampled, `startSpan` gives that parent's span back (or, with a sampler
    // that does not follow parents, lets the SDK decide): the request then carries the parent's
    // context and no span is kept open for it.
    const span = startSpan(
      request.method,
      { kind: SpanKind.CLIENT, attributes: () => requestAttributes(request) },
      active,
    );
    if (span.isRecording()) open.set(request, span);
    inject(withSpan(active, span), request);
  };
  const end = (request: ClientRequest) => {
    open.get(request)?.end();
    open.delete(request);
  };
  const answered = (message: unknown) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const span = open.get(request);
    if (!span) return;
    const status = response.statusCode ?? 0;
    span.setAttribute('http.response.status_code', status);
    if (status >= 400 || status < 100) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    response.once('end', () => end(request));
    response.once('close', () => end(request));
  };
  const failed = (message: unknown) => {
    const { request, error } = message as { request: ClientRequest; error: Error };
    const span = open.get(request);
    if (!span) return;
    span.recordException(error);
    span.setAttribute('error.type', (error as NodeJS.ErrnoException).code ?? error.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    end(request);
  };

  subscribe(CREATED, created);
  subscribe(ANSWERED, answered);
  subscribe(FAILED, failed);
  return () => {
    unsubscribe(CREATED, created);
    unsubscribe(ANSWERED, answered);
    unsubscribe(FAILED, failed);
  };
}

function inject(ctx: Context, request: ClientRequest): void {
  try {
    const kept = traceparentKept(ctx);
    if (kept) onRequest.set(request, 'traceparent', kept);
    else propagation.inject(ctx, request, onRequest);
  } catch {
    // Headers given as a raw array are sent as given: the request goes on without a context.
  }
}

/** What a recorded CLIENT span says of its request (the HTTP semantic conventions' names). */
function requestAttributes(request: ClientRequest): Attributes {
  const host = String(request.getHeader('host') ?? request.host);
  const port = /:(\d+)$/.exec(host)?.[1];
  return {
    'http.request.method': request.method,
    'url.full': withQueryValuesRedacted(`${request.protocol}//${host}${request.path}`),
    'server.address': request.host,
    'server.port': port ? Number(port) : request.protocol === 'https:' ? 443 : 80,
  };
}

/**
 * A URL with every query value replaced by `REDACTED` (the names kept): what an outgoing
 * request's span records of it. The URLs called are a lender's webhook endpoint or a third
 * party's, whose query may carry a token of theirs under any name.
 */
export function withQueryValuesRedacted(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const params = new URLSearchParams(url.slice(at + 1).split('#')[0]);
  for (const name of new Set(params.keys())) params.set(name, 'REDACTED');
  return `${url.slice(0, at)}?${params.toString()}`;
}
