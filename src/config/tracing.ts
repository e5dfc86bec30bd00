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

/** OTEL_TRACES_SAMPLER values the SDK knows; the ratio ones read OTEL_TRACES_SAMPLER_ARG. */
const SAMPLERS: readonly string[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** Standard variables the SDK reads as milliseconds (at least 0) or sizes (at least 1). */
const WHOLE_NUMBERS: Readonly<Record<string, number>> = {
  OTEL_EXPORTER_OTLP_TIMEOUT: 0,
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: 0,
  OTEL_BSP_SCHEDULE_DELAY: 0,
  OTEL_BSP_EXPORT_TIMEOUT: 0,
  OTEL_BSP_MAX_QUEUE_SIZE: 1,
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 1,
};

/**
 * The standard variables the SDK reads, checked as every other variable is (contract section 1):
 * the SDK itself would ignore a bad value without a word and run with its default.
 */
function checkStandardVariables(env: NodeJS.ProcessEnv, endpointVariable: string, endpoint: string): void {
  if (!/^https?:\/\/[^/?#\s]/i.test(endpoint) || !URL.canParse(endpoint)) {
    throw new ConfigError(endpointVariable, 'must be an http:// or https:// URL');
  }
  // As the SDK reads them: the sampler's name exactly (no trimming, no case folding), numbers by Number().
  const sampler = env.OTEL_TRACES_SAMPLER?.trim() ? env.OTEL_TRACES_SAMPLER : undefined;
  if (sampler !== undefined && !SAMPLERS.includes(sampler)) {
    throw new ConfigError('OTEL_TRACES_SAMPLER', `must be one of ${SAMPLERS.join(', ')}`);
  }
  const ratio = env.OTEL_TRACES_SAMPLER_ARG?.trim() ? Number(env.OTEL_TRACES_SAMPLER_ARG) : undefined;
  if (sampler?.endsWith('traceidratio') && ratio !== undefined && !(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', 'must be a number from 0 to 1');
  }
  for (const [variable, least] of Object.entries(WHOLE_NUMBERS)) {
    const value = env[variable]?.trim();
    if (value && !(/^\d{1,9}$/.test(value) && Number(value) >= least)) {
      throw new ConfigError(variable, `must be a whole number of at least ${least}`);
    }
  }
}

/**
 * Tracing is on when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or its traces-only
 * variant), as OpenTelemetry's own configuration reads them; undefined otherwise. The protocol is
 * the traces-only variable's, else the general one's, else http/protobuf (the specification's
 * default); gRPC, and a bad value of a standard variable the SDK reads, are refused with one line
 * naming the variable (ConfigError).
 */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const endpointVariable = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const endpoint = env[endpointVariable]?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[variable]?.trim() || 'http/protobuf';
  if (!PROTOCOLS.includes(protocol)) throw new ConfigError(variable, 'must be http/protobuf or http/json');
  checkStandardVariables(env, endpointVariable, endpoint);
  const namedByResource = /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || (namedByResource ? undefined : DEFAULT_SERVICE_NAME);
  return { protocol: protocol as OtlpProtocol, serviceName };
}

/** tracingSettings of this process's environment (register.ts runs before the configuration loads). */
export const tracingFromEnvironment = (): TracingSettings | undefined => tracingSettings(process.env);
