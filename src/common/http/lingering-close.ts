import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Contract section 8, oversized body: what is still coming is read and discarded up to this. */
export const LINGER_MAX_BYTES = 8 * 1024 * 1024;
export const LINGER_MAX_MS = 2_000;

type LingeringSocket = Socket & { destroySoon?: () => void };

/**
 * Makes the connection of a request answered before its body arrived in full (413, 503) close
 * gracefully: the answer goes out followed by a FIN, then the rest of the body is read and
 * discarded until it ends, LINGER_MAX_BYTES were read or LINGER_MAX_MS passed, and only then is the
 * socket destroyed. Node's HTTP server destroys a closing connection as soon as the answer is
 * written (socket.destroySoon), and closing a socket with unread data sends a TCP reset that can
 * reach the client before the answer does; this is nginx's "lingering close", applied to the one
 * socket by replacing the destroySoon that Node calls on it.
 */
export function lingerBeforeClose(request: IncomingMessage): void {
  const socket = request.socket as LingeringSocket;
  if (!socket || socket.destroyed) return;
  socket.destroySoon = () => {
    // Node has called request._dump() by now: the rest of the body flows to nowhere meanwhile.
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MAX_MS);
    socket.once('close', () => clearTimeout(timer));
    // As Node's own destroySoon: not before the answer is written.
    const destroyWhenWritten = () =>
      socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy());
    if (request.complete) return destroyWhenWritten();
    const readAtStart = socket.bytesRead;
    request.on('data', () => {
      if (socket.bytesRead - readAtStart > LINGER_MAX_BYTES) socket.destroy();
    });
    request.once('end', destroyWhenWritten);
  };
}
