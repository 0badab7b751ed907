/**
 * Quirks mode (phpanalytics-v31): the website routes as the deployed WebsiteController and its
 * FormRequests run them. A write reads `$request->input()` (the body, then the query); an id is
 * compared by MariaDB with the path's text (`1abc` is 1); page links are built from the request's
 * own URL (its Host and path as sent) unless the operator pinned `--public-url`; an update with
 * `user_id` is refused (403) before validation unless an admin sends it, whose website must then
 * belong to that user (else 404, `firstOrFail`); an update of a missing website is a
 * 500 (v31's `response()->json(404, …)`); values the columns cannot hold are 500s before the
 * write; a write's answer echoes the values as sent, and a favourite set now shows its time
 * with microseconds (a Carbon on the model).
 */
import type { FastifyRequest } from 'fastify';
import type { WebsiteStore } from '../store/contract.js';
import { authenticatedAccount } from './auth.js';
import { HttpError, serverError } from './http-error.js';
import { presentWebsite } from './present.js';
import { quirksListQuery } from './quirks-list-query.js';
import { type LinkBase, laravelInput, laravelUrl } from './quirks-request.js';
import { assertFitsColumns, mysqlId } from './quirks-validation.js';
import { MESSAGES } from './validation.js';
import type { ItemRequest, WebsiteDialect, WriteTime } from './website-routes.js';

/** Carbon::now(): to the microsecond (Date keeps milliseconds; the clock's sub-millisecond part is added). */
function preciseNow(): WriteTime {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  return { date: new Date(Math.floor(micros / 1000)), fraction: String(micros % 1_000_000).padStart(6, '0') };
}

/** Eloquent's ModelNotFoundException, as the exception handler renders it. */
const noWebsiteModel = () => new HttpError(404, { message: 'No query results for model [App\\Models\\Website].' });

/**
 * UpdateWebsiteRequest::authorize(): a user who is no admin may not name an owner (403); an admin
 * may, and the website (the path's id) must then be that user's: `firstOrFail()`, else 404.
 */
async function authorizeOwner(store: WebsiteStore, request: FastifyRequest, input: Record<string, unknown>) {
  if (!Object.hasOwn(input, 'user_id')) return;
  if (!authenticatedAccount(request).admin) throw new HttpError(403, { message: MESSAGES.unauthorized });
  const named = input.user_id;
  const owner = typeof named === 'string' || typeof named === 'number' ? mysqlId(String(named)) : undefined;
  const id = mysqlId((request as ItemRequest).params.id);
  if (owner === undefined || id === undefined || !(await store.getWebsite(owner, id))) throw noWebsiteModel();
}

export function quirksDialect(base: LinkBase, store: WebsiteStore): WebsiteDialect {
  return {
    mode: 'phpanalytics-v31',
    input: laravelInput,
    websiteId: mysqlId,
    listQuery: quirksListQuery,
    pageUrl: (request) => laravelUrl(request, base),
    now: preciseNow,
    authorizeUpdate: (request, input) => authorizeOwner(store, request, input),
    missing: serverError,
    assertStorable: assertFitsColumns,
    written: (website, echo, favorited) => {
      const data = { ...presentWebsite(website, 'phpanalytics-v31'), ...echo };
      if (favorited) data.favorited_at = `${website.favoritedAt}.${favorited.fraction}Z`;
      return data;
    },
  };
}
