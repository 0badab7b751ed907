/**
 * The library's door to the reference server: the server's packages are
 * optionalDependencies, so `import 'sitesync'` must not load them; they are
 * imported when a server is started.
 */
import type { RunningServer, ServerOptions } from './server/index.js';

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const server = await import('./server/index.js');
  return server.startServer(options);
}
