import { TraceFlags, context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import type { OutgoingHttpHeaders } from 'node:http';
import { followUnsampledParents, setTracePseudonymKey } from './tracing';

/** What a started SDK needs at shutdown. */
let running: { shutdown(): Promise<void> } | null = null;

/**
 * Whether the environment asks for traces: an exporter named by `OTEL_TRACES_EXPORTER` (other
 * than `none`), or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). `OTEL_SDK_DISABLED=true` turns it off whatever else is set.
 */
export function tracingWanted(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length > 0) return exporters.some((name) => name !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Requests of the orchestrator and of Prometheus, which would fill traces with noise. */
export const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Query parameters whose values never go into a server span's `url.query`: the instrumentation's
 * own list (signed-URL credentials), and the list's `q`, which may be who applied (a name, an
 * e-mail address, a phone number, a BVN).
 */
export const REDACTED_SERVER_QUERY_PARAMS = [
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
  'q',
];

/**
 * Whether an outgoing HTTP request goes without the instrumentation's span: every request made
 * outside a sampled trace. At the default sampling that is nine requests in ten, and for each
 * the instrumentation worked out the URL and attributes, started a span that was then dropped,
 * and bound the request's and response's listeners to contexts. A request in a trace that is
 * not sampled still carries its `traceparent` (the sampled flag off), put on the request's own
 * copy of its headers, so that a service of ours called does not start a trace of its own; one
 * made outside any trace (the registry's client, the lag probe, the exporter) carries nothing.
 */
export function outgoingRequestUntraced(options: { headers?: OutgoingHttpHeaders | readonly string[] }): boolean {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return true;
  if (spanContext.traceFlags & TraceFlags.SAMPLED) return false;
  if (!Array.isArray(options.headers)) {
    const headers: OutgoingHttpHeaders = { ...(options.headers as OutgoingHttpHeaders | undefined) };
    propagation.inject(context.active(), headers);
    options.headers = headers;
  }
  return true;
}

/**
 * A MongoDB command as a span records it (`db.query.text`): its fields two levels deep, every
 * value `?`, an array as its length, at most 16 fields an object. What the command did, never
 * the data; and bounded, where the instrumentation's default walks every field of every
 * document written (a statement with its transactions), which cost more CPU than the command.
 */
export function commandShape(command: unknown, depth = 3): unknown {
  if (Array.isArray(command)) return `[${command.length}]`;
  if (typeof command !== 'object' || command === null || depth === 0) return '?';
  const fields = Object.keys(command);
  const shape: Record<string, unknown> = {};
  for (const field of fields.slice(0, 16))
    shape[field] = commandShape((command as Record<string, unknown>)[field], depth - 1);
  if (fields.length > 16) shape['…'] = `${fields.length - 16} more`;
  return shape;
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

/** A tenth of new traces when the environment names no sampler: what tracing costs stays small. */
export const DEFAULT_SAMPLER = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };

/**
 * Whether every MongoDB command gets a span of its own (`TRACE_DB_COMMANDS=true`): off by
 * default, since they were most of an application's spans and of tracing's CPU; the spans of
 * each message handled and each call out carry the trace without them.
 */
export const dbCommandSpansWanted = (env: Record<string, string | undefined> = process.env): boolean =>
  env.TRACE_DB_COMMANDS?.trim().toLowerCase() === 'true';

/**
 * What the SDK reads from the environment, completed with our defaults: the service's name,
 * no metrics or logs over OTLP, and `DEFAULT_SAMPLER` when no sampler is named.
 */
export function applyTracingDefaults(env: Record<string, string | undefined>): void {
  if (!env.OTEL_SERVICE_NAME && env.SERVICE_NAME) env.OTEL_SERVICE_NAME = env.SERVICE_NAME;
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  // W3C trace context alone: nothing of ours reads or writes baggage, and extracting and
  // injecting it cost as much as the trace context on every message and request.
  env.OTEL_PROPAGATORS ??= 'tracecontext';
  if (!env.OTEL_TRACES_SAMPLER?.trim()) {
    env.OTEL_TRACES_SAMPLER = DEFAULT_SAMPLER.OTEL_TRACES_SAMPLER;
    env.OTEL_TRACES_SAMPLER_ARG = DEFAULT_SAMPLER.OTEL_TRACES_SAMPLER_ARG;
  }
}

/**
 * Starts the OpenTelemetry SDK when the environment asks for traces (see `tracingWanted`);
 * otherwise loads nothing and changes nothing. Configured by the standard variables only:
 * exporter and protocol (`OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_*`), sampling
 * (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`; unset, `DEFAULT_SAMPLER`), resource (`OTEL_SERVICE_NAME`, by default
 * the service's `SERVICE_NAME`; `OTEL_RESOURCE_ATTRIBUTES`), batching (`OTEL_BSP_*`), propagation
 * (`OTEL_PROPAGATORS`; unset, W3C trace context alone). Metrics
 * and logs are not sent over OTLP unless `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER` ask.
 *
 * Must run before anything else is loaded: the instrumentations (HTTP in and out, the
 * MongoDB driver) patch those modules as they are required.
 */
export function startTracing(env: Record<string, string | undefined> = process.env): boolean {
  if (running || !tracingWanted(env)) return false;
  applyTracingDefaults(env);
  setTracePseudonymKey(env.ANALYTICS_KEY);
  followUnsampledParents(samplerFollowsUnsampledParents(env.OTEL_TRACES_SAMPLER));
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    instrumentations: [
      // Outgoing requests only: each service's HTTP app starts its SERVER spans (`traceRequests`).
      new HttpInstrumentation({
        disableIncomingRequestInstrumentation: true,
        requestHook: (span, request) => {
          // Its URL as recorded, query values redacted.
          if (!('setHeader' in request)) return;
          const recorded = (span as unknown as { attributes?: Record<string, unknown> }).attributes?.['url.full'];
          if (typeof recorded === 'string') span.setAttribute('url.full', withQueryValuesRedacted(recorded));
        },
        // Only within a sampled trace (see `outgoingRequestUntraced`).
        ignoreOutgoingRequestHook: outgoingRequestUntraced,
      }),
      // No Express instrumentation: it wraps every middleware and router of every request (a
      // sixth of what tracing cost the gateway in a profile, even with their spans ignored) for a
      // span of the route's handler alone. The HTTP span gets the route itself (`httpMetrics`).
      // Statements as their shape (`commandShape`): no value, so no personal data, in a span.
      ...(dbCommandSpansWanted(env)
        ? [
            new MongoDBInstrumentation({
              requireParentSpan: true,
              dbStatementSerializer: (command) => JSON.stringify(commandShape(command)),
            }),
          ]
        : []),
    ],
  });
  sdk.start();
  running = sdk;
  return true;
}

/**
 * Whether the sampler the SDK reads from `OTEL_TRACES_SAMPLER` leaves a child of a span not
 * sampled unsampled: each `parentbased_*` one does (its default for such a parent is always-off).
 */
export const samplerFollowsUnsampledParents = (sampler: string | undefined): boolean =>
  (sampler?.trim().toLowerCase() ?? '').startsWith('parentbased_');

/** Exports what is left and stops the SDK (nothing when it was not started). */
export async function stopTracing(): Promise<void> {
  const sdk = running;
  running = null;
  followUnsampledParents(false);
  await sdk?.shutdown();
}
