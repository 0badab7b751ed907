/**
 * Quirks mode (phpanalytics-v31): the list's parameters as the deployed WebsiteController reads
 * them. `per_page` is PHP's loose `in_array` (`10.0`, `1e1` are 10) and stays as sent in `meta`
 * and the links; `favorite` filters when it is numeric (PHP truthiness: only `0` lists the
 * others); `search` is a LIKE pattern, applied when PHP finds it true (`0` is not), and an array
 * (`search[]=x`) is an "Array to string conversion": 500. Every link carries `search_by=domain`
 * and `favorite` as sent.
 */

import { PAGE_SIZES } from './fields.js';
import { serverError } from './http-error.js';
import { orderOf, type ParsedList, pageOf, textParam } from './list-query.js';
import { isPhpNumeric } from './quirks-validation.js';

/** `in_array($perPage, [10, 25, 50, 100]) ? $perPage : 10`: numeric text equal to a page size, kept as sent. */
export function quirksPerPage(raw: Record<string, unknown>): { perPage: number; perPageText: string } {
  const sent = textParam(raw, 'per_page');
  const size = sent !== undefined && isPhpNumeric(sent) ? PAGE_SIZES.find((each) => each === Number(sent)) : undefined;
  return size === undefined
    ? { perPage: PAGE_SIZES[0], perPageText: String(PAGE_SIZES[0]) }
    : { perPage: size, perPageText: sent! };
}

export function quirksListQuery(raw: Record<string, unknown>): ParsedList {
  if (Array.isArray(raw.search) || (typeof raw.search === 'object' && raw.search !== null)) throw serverError();
  const { perPage, perPageText } = quirksPerPage(raw);
  const page = pageOf(textParam(raw, 'page'));
  const { sortBy, sort } = orderOf(raw);
  const search = textParam(raw, 'search');
  const favorite = textParam(raw, 'favorite');

  const query: ParsedList['query'] = { sortBy, sort, limit: perPage, offset: (page - 1) * perPage };
  const appends: Record<string, string> = {};
  if (search) {
    if (search !== '0') query.search = { text: search, literal: false };
    appends.search = search;
  }
  appends.search_by = 'domain';
  if (favorite !== undefined && isPhpNumeric(favorite)) query.favorite = favorite !== '0';
  if (favorite) appends.favorite = favorite;
  Object.assign(appends, { sort_by: sortBy, sort, per_page: perPageText });
  return { query, page, perPage, appends, perPageText };
}
