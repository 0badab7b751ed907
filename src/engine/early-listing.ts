/**
 * Listing while parsing: when the connection does not depend on the
 * configuration (the URL from the request or SITESYNC_URL, which win over
 * `api.url` anyway), the full listing starts before the configuration is
 * read; when the URL is the file's `api.url`, as soon as the files are read,
 * from a scan of their text (config/api-url-scan.ts). The pages arrive while
 * the configuration is parsed and validated. Listing is read-only; a
 * configuration that fails (or declares `targets:`, or whose `api.url` is not
 * the one scanned) cancels it and waits for it to settle.
 * docs/architecture.md says when it starts.
 */
import type { Connection, WebsitesApi } from '../api/index.js';
import { scanApiUrl } from '../config/api-url-scan.js';
import type { DesiredState } from '../model/desired-state.js';
import type { LiveWebsite } from '../model/website.js';
import type { WriteOnlySync } from '../plan/index.js';
import { connectionOf, openClient } from './connect.js';
import type { EngineContext } from './context.js';
import type { RunRequest } from './request.js';

export interface EarlyListing {
  connection: Connection;
  /** The session's client: the plan that uses the listing closes it, or `cancel` does. */
  api: WebsitesApi;
  /** Every site of the account; rejects only when awaited (a failure is the plan's, not unhandled). */
  live(): Promise<LiveWebsite[]>;
  /** Aborts the listing, waits for it to settle and closes the client. */
  cancel(): Promise<void>;
  /** The `api.url` it was started with, scanned from the configuration's text (undefined: the request's or env's URL). */
  scannedApiUrl?: string;
}

/**
 * Starts the full listing if it can start before the configuration is read:
 * the URL comes from the request or the environment, the key resolves, and
 * the listing will be a full one (no --only, which may turn into per-domain
 * searches depending on the configuration's policy; no --target, which needs
 * `targets:`; no --sync-write-only naming sites, which is refused before any
 * request when they match no configured site). Otherwise undefined, and the
 * plan lists after loading, as before.
 */
export function startEarlyListing(
  request: RunRequest & { syncWriteOnly?: WriteOnlySync | false },
  context: EngineContext,
  /** The configuration's `api.url` as scanned from its text (used only when neither the request nor env has a URL). */
  scannedApiUrl?: string,
): EarlyListing | undefined {
  const { only, targets, target, syncWriteOnly } = request;
  if (only.length > 0 || targets.length > 0 || target !== undefined) return undefined;
  if (syncWriteOnly && syncWriteOnly.sites.length > 0) return undefined;
  if (context.signal?.aborted) return undefined; // stopped already: the load says so, and nothing is sent
  const fromEnv = context.env.SITESYNC_URL;
  const urlOutside = request.url !== undefined || (fromEnv !== undefined && fromEnv.trim() !== '');
  if (!urlOutside && scannedApiUrl === undefined) return undefined;
  let connection: Connection;
  try {
    connection = connectionOf(request, context, urlOutside ? undefined : scannedApiUrl);
  } catch {
    return undefined; // the same error comes again, in its usual place, once the configuration is valid
  }
  const api = openClient(request, context, connection);
  const controller = new AbortController();
  const stop = () => controller.abort(context.signal?.reason);
  context.signal?.addEventListener('abort', stop, { once: true });
  const listing = api.listWebsites({ signal: controller.signal });
  const settled = listing.then(
    () => undefined,
    () => undefined,
  );
  void settled.finally(() => context.signal?.removeEventListener('abort', stop));
  return {
    connection,
    api,
    ...(!urlOutside && { scannedApiUrl }),
    live: () => listing,
    cancel: async () => {
      controller.abort();
      await settled;
      await api.close();
    },
  };
}

/** Runs `load` (reading and validating the configuration) while `early` lists; a failed load cancels the listing. */
export async function whileListing<T>(
  early: Pick<EarlyListing, 'cancel'> | undefined,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    await early?.cancel();
    throw error;
  }
}

/**
 * Loads the configuration (`load`) while listing: the listing starts before
 * when the URL is the request's or env's, else once the files are read if
 * their `api.url` can be scanned (`load` calls `onRead` with their texts).
 * A listing whose scanned URL the loaded configuration contradicts is cancelled.
 */
export async function loadWhileListing(
  request: RunRequest & { syncWriteOnly?: WriteOnlySync | false },
  context: EngineContext,
  load: (onRead?: (texts: readonly string[]) => void) => Promise<DesiredState>,
): Promise<{ state: DesiredState; early: EarlyListing | undefined }> {
  let early = startEarlyListing(request, context);
  const onRead =
    early === undefined
      ? (texts: readonly string[]) => {
          const scanned = scanApiUrl(texts);
          if (scanned !== undefined) early = startEarlyListing(request, context, scanned);
        }
      : undefined;
  const state = await whileListing({ cancel: () => early?.cancel() ?? Promise.resolve() }, () => load(onRead));
  if (early?.scannedApiUrl !== undefined && early.scannedApiUrl !== state.apiUrl) {
    await early.cancel();
    early = undefined;
  }
  return { state, early };
}
