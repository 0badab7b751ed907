/**
 * Stored records → the service's JSON: the record shape, the `{data, status}`
 * envelope and the Laravel paginator (links, meta, and meta.links with its
 * "..." windows). The password is only ever a boolean here.
 */

import type { RecordShape, WebsiteRecord } from '../store/contract.js';
import type { ServerMode } from './mode.js';

const COMMON: RecordShape = [
  ['id', { column: 'id' }],
  ['domain', { column: 'domain' }],
  ['privacy', { column: 'privacy' }],
  ['password', { column: 'passwordHash', as: 'isSet' }],
  ['email', { column: 'email' }],
  ['exclude_bots', { column: 'excludeBots' }],
  ['exclude_params', { column: 'excludeParams' }],
  ['exclude_ips', { column: 'excludeIps' }],
  ['favorite', { column: 'favoritedAt', as: 'isSet' }],
  ['favorited_at', { column: 'favoritedAt' }],
  ['created_at', { column: 'createdAt' }],
  ['updated_at', { column: 'updatedAt' }],
];

/**
 * The real service's WebsiteResource: `email` before `password`, no exclude_params, and
 * favorited_at as `Y-m-d H:i:s`.
 */
const QUIRKS_ORDER = [
  'id',
  'domain',
  'privacy',
  'email',
  'password',
  'exclude_bots',
  'exclude_ips',
  'favorite',
  'favorited_at',
  'created_at',
  'updated_at',
];
const QUIRKS: RecordShape = QUIRKS_ORDER.map((key) => {
  const source = COMMON.find(([name]) => name === key)![1];
  return [key, key === 'favorited_at' ? { ...source, as: 'spacedDateTime' } : source] as const;
});

/** The wire record of a website, key by key; the store uses it to serialise list pages. */
export function recordShape(mode: ServerMode): RecordShape {
  return mode === 'phpanalytics-v31' ? QUIRKS : COMMON;
}

export function presentWebsite(website: WebsiteRecord, mode: ServerMode): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [key, { column, as }] of recordShape(mode)) {
    const value = website[column];
    if (as === 'isSet') record[key] = value !== null;
    else if (as === 'spacedDateTime' && typeof value === 'string') record[key] = value.replace('T', ' ');
    else record[key] = value;
  }
  return record;
}

export interface PageInfo {
  /** Absolute URL of the collection, without a query string. */
  path: string;
  /** List parameters to keep in every page link (Laravel's `appends`). */
  query: Record<string, string>;
  page: number;
  perPage: number;
  total: number;
  /** The real service's `meta.per_page` is text, as sent ("10", "10.0"). */
  perPageText?: string;
}

interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

const ON_EACH_SIDE = 3;

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}

/** Laravel's UrlWindow: all pages when few, else first/last pages around "..." and a slider. */
function pageWindow(current: number, last: number): (number[] | '...')[] {
  const window = ON_EACH_SIDE + 4;
  if (last < ON_EACH_SIDE * 2 + 8) return [range(1, last)];
  const start = range(1, 2);
  const finish = range(last - 1, last);
  if (current <= window) return [range(1, window + ON_EACH_SIDE), '...', finish];
  if (current > last - window) return [start, '...', range(last - (window + (ON_EACH_SIDE - 1)), last)];
  return [start, '...', range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), '...', finish];
}

/** Laravel's paginator links: page URLs, neighbours, and `meta.links` with its "..." windows. */
function paginator(rowCount: number, info: PageInfo) {
  const lastPage = Math.max(1, Math.ceil(info.total / info.perPage));
  const prefix = `${info.path}?${new URLSearchParams(info.query).toString()}${Object.keys(info.query).length > 0 ? '&' : ''}page=`;
  const url = (page: number) => `${prefix}${page}`;
  const prev = info.page > 1 ? url(info.page - 1) : null;
  const next = info.page < lastPage ? url(info.page + 1) : null;
  const from = rowCount > 0 ? (info.page - 1) * info.perPage + 1 : null;

  const links: PageLink[] = [{ url: prev, label: '&laquo; Previous', active: false }];
  for (const element of pageWindow(info.page, lastPage)) {
    if (element === '...') links.push({ url: null, label: '...', active: false });
    else for (const page of element) links.push({ url: url(page), label: String(page), active: page === info.page });
  }
  links.push({ url: next, label: 'Next &raquo;', active: false });
  return {
    first: url(1),
    last: url(lastPage),
    prev,
    next,
    from,
    to: from === null ? null : from + rowCount - 1,
    lastPage,
    links,
    perPage: info.perPageText ?? info.perPage,
  };
}

/** A resource collection's page as JSON text around the page's already serialised records. */
export function presentPage(rowsJson: string, rowCount: number, info: PageInfo): string {
  const page = paginator(rowCount, info);
  const rest = JSON.stringify({
    links: { first: page.first, last: page.last, prev: page.prev, next: page.next },
    meta: {
      current_page: info.page,
      from: page.from,
      last_page: page.lastPage,
      links: page.links,
      path: info.path,
      per_page: page.perPage,
      to: page.to,
      total: info.total,
    },
    status: 200,
  });
  return `{"data":${rowsJson},${rest.slice(1)}`;
}

/** A bare paginator (LengthAwarePaginator::toArray, as a JsonResource of one renders it), with `status`. */
export function presentPlainPage(rows: unknown[], info: PageInfo): Record<string, unknown> {
  const page = paginator(rows.length, info);
  return {
    current_page: info.page,
    data: rows,
    first_page_url: page.first,
    from: page.from,
    last_page: page.lastPage,
    last_page_url: page.last,
    links: page.links,
    next_page_url: page.next,
    path: info.path,
    per_page: page.perPage,
    prev_page_url: page.prev,
    to: page.to,
    total: info.total,
    status: 200,
  };
}
