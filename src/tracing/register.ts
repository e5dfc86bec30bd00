import { ConfigError } from '../config/environment';
import { tracingFromEnvironment } from '../config/tracing';
import { tracingStarted } from './tracing-state';

/**
 * Imported first by main.ts, so it runs before anything requires `http` or `pg`: with an OTLP
 * endpoint configured, starts the OpenTelemetry SDK (contract section 12). Without one, the SDK is
 * never required: no module loaded, no patch, no cost. The CLI does not import this.
 */
function registerTracing(): void {
  let settings: ReturnType<typeof tracingFromEnvironment>;
  try {
    settings = tracingFromEnvironment();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  if (settings === undefined) return;
  // A require, not an import: the SDK and its instrumentations load only when tracing is on.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./tracing-sdk') as typeof import('./tracing-sdk');
  tracingStarted(sdk.startTracingSdk(settings));
}

registerTracing();
