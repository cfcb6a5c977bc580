import { traceOutgoingRequests } from './httpClientTracing';
import { followUnsampledParents, keepUnsampledTraceparents, setTracePseudonymKey } from './tracing';

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
 * Query parameters whose values never go into a SERVER span's `url.query`: signed-URL
 * credentials (the HTTP instrumentation's list), and the list's `q`, which may be who applied (a
 * name, an e-mail address, a phone number, a BVN).
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
 * Must run before anything else is loaded: the MongoDB driver's instrumentation, when database
 * command spans are asked for, patches the driver as it is required.
 */
export function startTracing(env: Record<string, string | undefined> = process.env): boolean {
  if (running || !tracingWanted(env)) return false;
  applyTracingDefaults(env);
  setTracePseudonymKey(env.ANALYTICS_KEY);
  const followsParents = samplerFollowsUnsampledParents(env.OTEL_TRACES_SAMPLER);
  followUnsampledParents(followsParents);
  keepUnsampledTraceparents(followsParents && env.OTEL_PROPAGATORS?.trim().toLowerCase() === 'tracecontext');
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    // No instrumentation of HTTP or Express: each service's HTTP app starts its SERVER spans
    // (`traceRequests`) and `traceOutgoingRequests` its CLIENT spans, both named by what a
    // request is and given attributes only when recorded; the instrumentations did that work
    // for every request, sampled or not, and Express's wrapped every middleware as well.
    instrumentations: [
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
  const stopOutgoing = traceOutgoingRequests();
  running = {
    shutdown: async () => {
      stopOutgoing();
      await sdk.shutdown();
    },
  };
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
  keepUnsampledTraceparents(false);
  await sdk?.shutdown();
}
