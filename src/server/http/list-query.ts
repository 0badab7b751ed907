/**
 * List parameters → a storage query. Unknown values fall back silently to the
 * defaults (id, desc, 10 per page, page 1), as the real service does; clients
 * must read `meta`. Quirks mode keeps the real service's LIKE wildcards and its
 * numeric-only `favorite` filter.
 */

import type { ListQuery } from '../store/contract.js';
import { PAGE_SIZES, SORT, SORT_BY } from './fields.js';
import type { ServerMode } from './mode.js';
/** Pages past this are read as this one: its offset still fits a safe integer at 100 per page, and no account has that many websites. */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / 100);

export interface ParsedList {
  query: Omit<ListQuery, 'accountId'>;
  page: number;
  perPage: number;
  /** The effective parameters, kept in every page link. */
  appends: Record<string, string>;
}

function favoriteFilter(value: string | undefined, mode: ServerMode): boolean | undefined {
  if (value === '1' || (mode === 'normal' && value === 'true')) return true;
  if (value === '0' || (mode === 'normal' && value === 'false')) return false;
  return undefined;
}

export function parseListQuery(raw: Record<string, unknown>, mode: ServerMode): ParsedList {
  // Repeated parameters arrive as arrays: ignore them like any unreadable value.
  const param = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string).trim() : undefined);
  const perPage = PAGE_SIZES.find((size) => String(size) === param('per_page')) ?? PAGE_SIZES[0];
  const pageText = param('page') ?? '';
  // Any page number past the last is an empty page, however large: only unreadable text means page 1.
  const page = /^\d+$/.test(pageText) && Number(pageText) >= 1 ? Math.min(Number(pageText), MAX_PAGE) : 1;
  const sortBy = SORT_BY.find((name) => name === param('sort_by')) ?? SORT_BY[0];
  const sort = SORT.find((name) => name === param('sort')) ?? SORT[0];
  const search = param('search');
  const favorite = favoriteFilter(param('favorite'), mode);

  const query: ParsedList['query'] = { sortBy, sort, limit: perPage, offset: (page - 1) * perPage };
  const appends: Record<string, string> = {};
  if (search) {
    query.search = { text: search, literal: mode === 'normal' };
    appends.search = search;
    appends.search_by = 'domain';
  } else if (mode !== 'normal') {
    // The real service's links always carry search_by=domain; the contract's only with a search.
    appends.search_by = 'domain';
  }
  if (favorite !== undefined) query.favorite = favorite;
  // The real service keeps `favorite` in its links as sent, even a value it does not filter on.
  const favoriteLink = mode === 'normal' ? favorite !== undefined && (favorite ? '1' : '0') : param('favorite');
  if (favoriteLink) appends.favorite = favoriteLink;
  Object.assign(appends, { sort_by: sortBy, sort, per_page: String(perPage) });
  return { query, page, perPage, appends };
}
