/**
 * The account identity recorded in a saved plan: `keyIdOf` of the API key the
 * command connects with, resolved exactly as `openClient` resolves it. The
 * key itself never leaves this function.
 */
import { keyIdOf } from '../plan/saved-plan.js';
import type { Io } from './io.js';
import { type ConnectionOptions, connectionOf } from './shared-options.js';

export function connectionKeyId(
  options: ConnectionOptions,
  io: Pick<Io, 'env' | 'cwd'>,
  configApiUrl?: string,
): string {
  return keyIdOf(connectionOf(options, io, configApiUrl).apiKey.reveal());
}
