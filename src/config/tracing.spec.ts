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
});
