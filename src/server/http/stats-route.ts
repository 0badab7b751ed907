/**
 * `GET /api/v1/stats/{id}` as the deployed StatController answers it (quirks mode only; the
 * contract has no such route). SelectStatsRequest runs first: `name` one of the statistics'
 * types, `from` and `to` dates in `Y-m-d` (422 with every failing field); then the website (404
 * for one the account does not own); then the page of statistics, which is always empty here:
 * the reference server records no visits. The page is a bare paginator (a JsonResource of a
 * LengthAwarePaginator renders its toArray), with `status`.
 */
import type { WebsiteStore } from '../store/contract.js';
import { authenticatedAccount } from './auth.js';
import { invalid, notFound } from './http-error.js';
import { pageOf, textParam } from './list-query.js';
import { presentPlainPage } from './present.js';
import { quirksPerPage } from './quirks-list-query.js';
import { type LinkBase, laravelUrl } from './quirks-request.js';
import { mysqlId } from './quirks-validation.js';
import type { ItemRequest, RouteHandler } from './website-routes.js';

export const STATS_PATH = '/api/v1/stats/:id';

/** config/stats.php `types`. */
const STAT_TYPES = [
  'browser',
  'campaign',
  'city',
  'continent',
  'country',
  'device',
  'event',
  'landing_page',
  'language',
  'os',
  'page',
  'pageviews',
  'pageviews_hour',
  'referrer',
  'resolution',
  'visitors',
  'visitors_hour',
];

/** `date_format:Y-m-d`: four-digit year, two-digit month and day, and a day the calendar has. */
function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return date.toISOString().slice(0, 10) === text;
}

/** SelectStatsRequest's rules, each field's first failure (`required` stops the others). */
function statsErrors(query: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const present = (name: string) => {
    const value = query[name];
    if (value === undefined || (typeof value === 'string' && value.trim() === '')) {
      errors[name] = [`The ${name} field is required.`];
      return undefined;
    }
    return typeof value === 'string' ? value.trim() : null;
  };
  const name = present('name');
  if (name !== undefined && (name === null || !STAT_TYPES.includes(name)))
    errors.name = ['The selected name is invalid.'];
  for (const field of ['from', 'to']) {
    const value = present(field);
    if (value !== undefined && (value === null || !isDate(value))) {
      errors[field] = [`The ${field} field must match the format Y-m-d.`];
    }
  }
  return errors;
}

/** The paginator's parameters: the controller's (`search_by=value`, `sort_by=count`), in its order. */
function appendsOf(query: Record<string, unknown>, perPageText: string): Record<string, string> {
  const sortBy = ['count', 'value'].find((value) => value === textParam(query, 'sort_by')) ?? 'count';
  const sort = ['asc', 'desc'].find((value) => value === textParam(query, 'sort')) ?? 'desc';
  const search = textParam(query, 'search');
  const appends: Record<string, string> = {};
  for (const name of ['name', 'from', 'to']) appends[name] = textParam(query, name)!;
  if (search) appends.search = search;
  return Object.assign(appends, { search_by: 'value', sort_by: sortBy, sort, per_page: perPageText });
}

export function statsHandler(store: WebsiteStore, base: LinkBase): RouteHandler {
  return async (request) => {
    const account = authenticatedAccount(request);
    const query = request.query as Record<string, unknown>;
    const errors = statsErrors(query);
    if (Object.keys(errors).length > 0) throw invalid(errors);
    const id = mysqlId((request as ItemRequest).params.id);
    if (id === undefined || !(await store.getWebsite(account.id, id))) throw notFound();
    const { perPage, perPageText } = quirksPerPage(query);
    const page = pageOf(textParam(query, 'page'));
    const path = laravelUrl(request, base);
    return presentPlainPage([], { path, query: appendsOf(query, perPageText), page, perPage, perPageText, total: 0 });
  };
}
