import { ConfigError } from './environment';

/** OTLP/HTTP encodings the service exports in (contract section 12). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What starts the OpenTelemetry SDK; the SDK itself reads the other standard OTEL_* variables. */
export interface TracingSettings {
  protocol: OtlpProtocol;
  /** Undefined: OTEL_RESOURCE_ATTRIBUTES names the service, and wins. */
  serviceName: string | undefined;
}

const DEFAULT_SERVICE_NAME = 'partner-integration-service';
const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];

/**
 * Tracing is on when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or its traces-only
 * variant), as OpenTelemetry's own configuration reads them; undefined otherwise. The protocol is
 * the traces-only variable's, else the general one's, else http/protobuf (the specification's
 * default); gRPC is refused with one line naming the variable (ConfigError).
 */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[variable]?.trim() || 'http/protobuf';
  if (!PROTOCOLS.includes(protocol)) throw new ConfigError(variable, 'must be http/protobuf or http/json');
  const namedByResource = /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || (namedByResource ? undefined : DEFAULT_SERVICE_NAME);
  return { protocol: protocol as OtlpProtocol, serviceName };
}

/** tracingSettings of this process's environment (register.ts runs before the configuration loads). */
export const tracingFromEnvironment = (): TracingSettings | undefined => tracingSettings(process.env);
