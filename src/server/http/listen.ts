/**
 * Where the server listens: host and port, or a Unix socket (`--socket`) for a proxy on the
 * same machine, created 0600 so that only its owner (and root) can open it. A socket's peer has
 * no address: its requests come from `unix`, and only a bare `--trust-proxy` can apply to it.
 */
import { chmodSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ServerSetupError } from '../setup-error.js';

/** The peer of a Unix socket connection has no address: its requests come from this one. */
const UNIX_PEER = 'unix';

export function checkSocketOptions(trustProxy: unknown, publicUrl: string | undefined): void {
  if (Array.isArray(trustProxy)) {
    throw new ServerSetupError(
      '--trust-proxy: the peer of a Unix socket has no address to name; give --trust-proxy without addresses ' +
        '(whoever can open the socket file is believed)',
    );
  }
  if (publicUrl === undefined) {
    throw new ServerSetupError('--socket needs --public-url: page links cannot point at a Unix socket');
  }
}

/** Listens on the socket or on host and port; the server's URL (`unix:PATH` for a socket). */
export async function listen(
  app: FastifyInstance,
  options: { host?: string; port?: number; socket?: string },
): Promise<string> {
  const { socket } = options;
  if (socket !== undefined) {
    // Every request needs a client address (the failed-authentication count, the log).
    app.server.on('connection', (connection: Socket) => {
      Object.defineProperty(connection, 'remoteAddress', { value: UNIX_PEER });
    });
    await app.listen({ path: socket });
    // The umask usually leaves it writable by its owner only; made sure of, whatever the umask.
    chmodSync(socket, 0o600);
    return `unix:${socket}`;
  }
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 8080 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
