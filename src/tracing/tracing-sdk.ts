import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { envDetector, hostDetector } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { TracingSettings } from '../config/tracing';
import { ScrubbingExporter } from './scrubbing-exporter';
import type { StartedTracing } from './tracing-state';

/**
 * Loaded only with an OTLP endpoint set (register.ts), before Nest, Fastify and pg are: the
 * instrumentations patch `http` and `pg` as they are first required. The SDK reads the other
 * standard variables itself: the endpoint, headers and time-out of the exporter, OTEL_TRACES_SAMPLER
 * (and _ARG), OTEL_BSP_* (the batch processor), OTEL_RESOURCE_ATTRIBUTES, OTEL_PROPAGATORS.
 */
export function startTracingSdk(settings: TracingSettings): StartedTracing {
  const exporter = settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const sdk = new NodeSDK({
    ...(settings.serviceName === undefined ? {} : { serviceName: settings.serviceName }),
    traceExporter: new ScrubbingExporter(exporter),
    // Metrics stay on prom-client (/metrics) and logs on stdout: none go through OpenTelemetry.
    metricReaders: [],
    logRecordProcessors: [],
    // Not the process detector: its command line could carry anything an operator typed.
    resourceDetectors: [envDetector, hostDetector],
    instrumentations: [
      new HttpInstrumentation({
        // Deliveries are the `webhook.attempt` span, sent from the delivery thread (which these
        // patches do not reach); the main thread's other outgoing calls are the exporter's own.
        disableOutgoingRequestInstrumentation: true,
        // No header is captured; the scrubber drops the URL, query, user agent and addresses.
        headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] } },
      }),
      // Statements outside any traced work (the worker's claims and records, the listener) would
      // each be a trace of their own, several a second while idle: only those under a span count.
      // A pool checkout is not a statement: no `pg-pool.connect` spans (two per request).
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        ignoreConnectSpans: true,
      }),
    ],
  });
  sdk.start();
  return { onRequest: nameServerSpanAfterRoute, shutdown: () => sdk.shutdown() };
}

/**
 * The HTTP instrumentation names the server span after the route when one is known at its end
 * (`POST /admin/licence-events`, attribute http.route): Fastify knows it once it routed the
 * request, before the first onRequest hook. Unknown routes keep the method alone.
 */
function nameServerSpanAfterRoute(
  request: { routeOptions: { url?: string } },
  _reply: unknown,
  done: () => void,
): void {
  const route = request.routeOptions.url;
  const rpc = getRPCMetadata(context.active());
  if (route !== undefined && rpc?.type === RPCType.HTTP) rpc.route = route;
  done();
}
