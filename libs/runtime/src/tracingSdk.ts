import { setTracePseudonymKey } from './tracing';

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
const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts the OpenTelemetry SDK when the environment asks for traces (see `tracingWanted`);
 * otherwise loads nothing and changes nothing. Configured by the standard variables only:
 * exporter and protocol (`OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_*`), sampling
 * (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`), resource (`OTEL_SERVICE_NAME`, by default
 * the service's `SERVICE_NAME`; `OTEL_RESOURCE_ATTRIBUTES`), batching (`OTEL_BSP_*`). Metrics
 * and logs are not sent over OTLP unless `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER` ask.
 *
 * Must run before anything else is loaded: the instrumentations (HTTP in and out, express,
 * the MongoDB driver) patch those modules as they are required.
 */
export function startTracing(env: Record<string, string | undefined> = process.env): boolean {
  if (running || !tracingWanted(env)) return false;
  if (!env.OTEL_SERVICE_NAME && env.SERVICE_NAME) env.OTEL_SERVICE_NAME = env.SERVICE_NAME;
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  setTracePseudonymKey(env.ANALYTICS_KEY);
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => OPS_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        // The broker's and the registry's clients, the lag probe and the like: only within a trace.
        requireParentforOutgoingSpans: true,
      }),
      new ExpressInstrumentation(),
      // Statements with their values masked (the default): no personal data in a span.
      new MongoDBInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  running = sdk;
  return true;
}

/** Exports what is left and stops the SDK (nothing when it was not started). */
export async function stopTracing(): Promise<void> {
  const sdk = running;
  running = null;
  await sdk?.shutdown();
}
