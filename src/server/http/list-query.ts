/**
 * List parameters → a storage query. Unknown values fall back silently to the
 * defaults (id, desc, 10 per page, page 1), as the real service does; clients
 * must read `meta`. Quirks mode reads them as the deployed controller does
 * (quirks-list-query.ts, with the readers below).
 */

import type { ListQuery } from '../store/contract.js';
import { PAGE_SIZES, SORT, SORT_BY } from './fields.js';

/** Pages past this are read as this one: its offset still fits a safe integer at 100 per page, and no account has that many websites. */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / 100);

export interface ParsedList {
  query: Omit<ListQuery, 'accountId'>;
  page: number;
  perPage: number;
  /** The effective parameters, kept in every page link. */
  appends: Record<string, string>;
  /** `meta.per_page` as the deployed service shows it: text, as sent (quirks mode). */
  perPageText?: string;
}

/** A parameter as text, trimmed; repeated parameters (arrays) read as absent, like any unreadable value. */
export const textParam = (raw: Record<string, unknown>, name: string): string | undefined =>
  typeof raw[name] === 'string' ? (raw[name] as string).trim() : undefined;

/** Any page number past the last is an empty page, however large: only unreadable text means page 1. */
export function pageOf(text: string | undefined): number {
  return text !== undefined && /^\d+$/.test(text) && Number(text) >= 1 ? Math.min(Number(text), MAX_PAGE) : 1;
}

/** The order: a known sort_by and sort, else id, desc. */
export function orderOf(raw: Record<string, unknown>): Pick<ListQuery, 'sortBy' | 'sort'> {
  const sortBy = SORT_BY.find((name) => name === textParam(raw, 'sort_by')) ?? SORT_BY[0];
  const sort = SORT.find((name) => name === textParam(raw, 'sort')) ?? SORT[0];
  return { sortBy, sort };
}

function favoriteFilter(value: string | undefined): boolean | undefined {
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  return undefined;
}

/** The contract's reading: literal search, `favorite` 1/0/true/false, links with the effective values. */
export function parseListQuery(raw: Record<string, unknown>): ParsedList {
  const perPage = PAGE_SIZES.find((size) => String(size) === textParam(raw, 'per_page')) ?? PAGE_SIZES[0];
  const page = pageOf(textParam(raw, 'page'));
  const { sortBy, sort } = orderOf(raw);
  const search = textParam(raw, 'search');
  const favorite = favoriteFilter(textParam(raw, 'favorite'));

  const query: ParsedList['query'] = { sortBy, sort, limit: perPage, offset: (page - 1) * perPage };
  const appends: Record<string, string> = {};
  if (search) {
    query.search = { text: search, literal: true };
    appends.search = search;
    appends.search_by = 'domain';
  }
  if (favorite !== undefined) {
    query.favorite = favorite;
    appends.favorite = favorite ? '1' : '0';
  }
  Object.assign(appends, { sort_by: sortBy, sort, per_page: String(perPage) });
  return { query, page, perPage, appends };
}
