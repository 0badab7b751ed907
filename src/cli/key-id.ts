/**
 * The account identity recorded in a saved plan: `keyIdOf` of the API key the
 * command connects with, resolved the same way `openClient` resolves it. The
 * key itself never leaves this function.
 */
import { resolveConnection } from '../api/index.js';
import { keyIdOf } from '../plan/saved-plan.js';
import type { Io } from './io.js';
import type { ConnectionOptions } from './shared-options.js';

export function connectionKeyId(
  options: ConnectionOptions,
  io: Pick<Io, 'env' | 'cwd'>,
  configApiUrl?: string,
): string {
  const connection = resolveConnection({
    env: io.env,
    cwd: io.cwd,
    insecureHttp: options.insecureHttp,
    ...(options.url !== undefined && { url: options.url }),
    ...(options.apiKeyFile !== undefined && { apiKeyFile: options.apiKeyFile }),
    ...(configApiUrl !== undefined && { configApiUrl }),
  });
  return keyIdOf(connection.apiKey.reveal());
}
