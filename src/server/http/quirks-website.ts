/**
 * Quirks mode (phpanalytics-v31): the website routes as the deployed WebsiteController and its
 * FormRequests run them. A write reads `$request->input()` (the body, then the query); an id is
 * compared by MariaDB with the path's text (`1abc` is 1); page links are built from the request's
 * own URL (its Host and path as sent) unless the operator pinned `--public-url`; an update with
 * `user_id` is refused (403, the policy) before validation; an update of a missing website is a
 * 500 (v31's `response()->json(404, …)`); values the columns cannot hold are 500s before the
 * write; a write's answer echoes the values as sent, and a favourite set now shows its time
 * with microseconds (a Carbon on the model).
 */
import { HttpError, serverError } from './http-error.js';
import { presentWebsite } from './present.js';
import { quirksListQuery } from './quirks-list-query.js';
import { type LinkBase, laravelInput, laravelUrl } from './quirks-request.js';
import { assertFitsColumns, mysqlId } from './quirks-validation.js';
import { MESSAGES } from './validation.js';
import type { WebsiteDialect, WriteTime } from './website-routes.js';

/** Carbon::now(): to the microsecond (Date keeps milliseconds; the clock's sub-millisecond part is added). */
function preciseNow(): WriteTime {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  return { date: new Date(Math.floor(micros / 1000)), fraction: String(micros % 1_000_000).padStart(6, '0') };
}

export function quirksDialect(base: LinkBase): WebsiteDialect {
  return {
    mode: 'phpanalytics-v31',
    input: laravelInput,
    websiteId: mysqlId,
    listQuery: quirksListQuery,
    pageUrl: (request) => laravelUrl(request, base),
    now: preciseNow,
    authorizeUpdate: async (_request, input) => {
      // UpdateWebsiteRequest::authorize(): a user who is no admin may not name an owner.
      if (Object.hasOwn(input, 'user_id')) throw new HttpError(403, { message: MESSAGES.unauthorized });
    },
    missing: serverError,
    assertStorable: assertFitsColumns,
    written: (website, echo, favorited) => {
      const data = { ...presentWebsite(website, 'phpanalytics-v31'), ...echo };
      if (favorited) data.favorited_at = `${website.favoritedAt}.${favorited.fraction}Z`;
      return data;
    },
  };
}
