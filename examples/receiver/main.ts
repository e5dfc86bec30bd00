/**
 * Runs the example receiver:
 *   TLS_CERT=cert.pem TLS_KEY=key.pem PORT=8443 ALLOWED_TENANTS=acme \
 *   SIGNING_SECRETS=whsec_… HEADER_NAME=X-Webhook-Secret HEADER_VALUE=s3cret \
 *   node dist/examples/receiver/main.js
 * SIGNING_SECRETS: the subscription's secret (GET /webhooks/subscriptions/{id}/secret), or two,
 * comma-separated, while moving to a rotated one.
 */
import { readFileSync } from 'node:fs';
import { createReceiver } from './receiver';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) {
    process.stderr.write(`${name} is required\n`);
    process.exit(1);
  }
  return value;
};

const server = createReceiver(
  { cert: readFileSync(env('TLS_CERT')), key: readFileSync(env('TLS_KEY')) },
  {
    signingSecrets: (process.env.SIGNING_SECRETS ?? '').split(',').filter((secret) => secret !== ''),
    headerName: process.env.HEADER_NAME,
    headerValue: process.env.HEADER_VALUE,
    allowedTenants: env('ALLOWED_TENANTS').split(','),
    replayWindowMs: Number(env('REPLAY_WINDOW_SECONDS', '300')) * 1000,
    onEvent: (event) => {
      console.log(
        JSON.stringify({ received: event.eventType, tenant: event.tenant, code: event.licence?.code }),
      );
    },
    onReject: (status, reason) => console.log(JSON.stringify({ rejected: status, reason })),
  },
);
if (!process.env.SIGNING_SECRETS) console.warn('SIGNING_SECRETS is not set: signatures are not checked');
server.listen(Number(env('PORT', '8443')), () => console.log(`receiver listening on ${env('PORT', '8443')}`));
