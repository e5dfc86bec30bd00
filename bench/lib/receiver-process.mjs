/* global process, URL */
// The bench's HTTPS receiver (receiver.mjs) as a child process of the bench or of a diagnostic.
import { fileURLToPath } from 'node:url';
import { forkTracked, waitForMessage } from './processes.mjs';

const RECEIVER_SCRIPT = fileURLToPath(new URL('../receiver.mjs', import.meta.url));

/**
 * Starts receiver.mjs with the certificate `certs` (writeReceiverCertificates) on `portCount` ports.
 * `ready` resolves with its first message: { ports, hangPort }.
 */
export function startReceiver(certs, portCount) {
  const child = forkTracked('receiver', RECEIVER_SCRIPT, {
    env: {
      ...process.env,
      RECEIVER_KEY: certs.key,
      RECEIVER_CERT: certs.cert,
      RECEIVER_PORT_COUNT: String(portCount),
    },
  });
  return { child, ready: waitForMessage(child, 'ready') };
}
