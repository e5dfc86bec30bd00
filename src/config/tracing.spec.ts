import { ConfigError } from './environment';
import { tracingSettings } from './tracing';

describe('tracingSettings (contract section 12)', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

  it('is off without an OTLP endpoint, whatever else is set, and when the SDK is disabled', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:4318/v1/metrics' }),
    ).toBeUndefined();
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('defaults to http/protobuf and the service name; the traces-only variables win', () => {
    expect(tracingSettings(endpoint)).toEqual({
      protocol: 'http/protobuf',
      serviceName: 'partner-integration-service',
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'pis-eu',
      }),
    ).toEqual({ protocol: 'http/json', serviceName: 'pis-eu' });
    // A service.name in the resource attributes is the operator's: no default over it.
    expect(
      tracingSettings({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'env=prod,service.name=pis' })?.serviceName,
    ).toBe(undefined);
  });

  it('refuses gRPC (and anything but OTLP/HTTP) naming the variable', () => {
    expect(() => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      new ConfigError('OTEL_EXPORTER_OTLP_PROTOCOL', 'must be http/protobuf or http/json'),
    );
  });

  it('refuses an endpoint that is not an http(s) URL, naming the variable in use', () => {
    for (const bad of ['notaurl', 'collector:4318', 'ftp://collector:4318', 'http://', 'http:// x']) {
      expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: bad })).toThrow(
        new ConfigError('OTEL_EXPORTER_OTLP_ENDPOINT', 'must be an http:// or https:// URL'),
      );
    }
    expect(() =>
      tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector/v1/traces' }),
    ).toThrow(new ConfigError('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'must be an http:// or https:// URL'));
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'HTTPS://[::1]:4318/' })).toBeDefined();
  });

  it('refuses an unknown sampler, a ratio outside 0..1 and a bad batch or time-out setting', () => {
    const refused = (vars: Record<string, string>, variable: string) => {
      let error: unknown;
      try {
        tracingSettings({ ...endpoint, ...vars });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(new RegExp(`^Invalid environment variable ${variable}: `));
    };
    // The SDK compares the name as it is: another case or a space is not a sampler it knows.
    for (const sampler of ['bogus', 'ALWAYS_OFF', ' always_on'])
      refused({ OTEL_TRACES_SAMPLER: sampler }, 'OTEL_TRACES_SAMPLER');
    for (const arg of ['2', '-0.5', 'half', '1e3', '...'])
      refused(
        { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: arg },
        'OTEL_TRACES_SAMPLER_ARG',
      );
    for (const value of ['abc', '-1', '1.5', '10000000000'])
      refused({ OTEL_BSP_SCHEDULE_DELAY: value }, 'OTEL_BSP_SCHEDULE_DELAY');
    refused({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '0' }, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE');
    refused({ OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }, 'OTEL_EXPORTER_OTLP_TIMEOUT');
  });

  it('takes the standard samplers, ratios and settings as the SDK reads them', () => {
    for (const sampler of ['always_on', 'always_off', 'parentbased_traceidratio', 'traceidratio'])
      expect(tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: sampler })).toBeDefined();
    for (const arg of ['0', '1', '0.25', '.5', '1.0', '1e-3'])
      expect(
        tracingSettings({
          ...endpoint,
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: arg,
        }),
      ).toBeDefined();
    // The ratio's argument means nothing to another sampler: the SDK ignores it there.
    expect(
      tracingSettings({ ...endpoint, OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'x' }),
    ).toBeDefined();
    expect(
      tracingSettings({
        ...endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '0',
        OTEL_BSP_MAX_QUEUE_SIZE: '4096',
        OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
      }),
    ).toBeDefined();
    // Unset tracing reads none of them.
    expect(tracingSettings({ OTEL_TRACES_SAMPLER: 'bogus', OTEL_BSP_SCHEDULE_DELAY: 'x' })).toBeUndefined();
  });
});
