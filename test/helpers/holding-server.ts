/**
 * A hostile service for tests of bounded answers: every request gets 200, a
 * JSON content type and `prefix`, and then the answer is held open (or ended
 * with `end`). `abandoned` resolves when a client left before the answer
 * ended: it refused the answer from what it had read so far.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingServer {
  url: string;
  requests: number;
  abandoned: Promise<void>;
  close(): Promise<void>;
}

export async function holdingServer(prefix: string, end?: string): Promise<HoldingServer> {
  let abandon: () => void = () => {};
  const abandoned = new Promise<void>((resolve) => {
    abandon = resolve;
  });
  const holding = { url: '', requests: 0, abandoned, close: async () => {} };
  const server = createServer((_req, res) => {
    holding.requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(prefix);
    if (end !== undefined) res.end(end);
    res.on('close', () => {
      if (!res.writableFinished) abandon();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  holding.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  holding.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return holding;
}
