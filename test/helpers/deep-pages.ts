/**
 * Shared by the deep-pages tests of both backends: a seeded account, every
 * page of a list in one order and filter, and writes that move rows around.
 */
import type { ListQuery, ServerStore } from '../../src/server/store/contract.js';
import { STORED_DEFAULTS } from './stored-website.js';

export const SHAPE = [
  ['id', { column: 'id' }],
  ['domain', { column: 'domain' }],
] as const;

export const ORDERS = [
  ['id', 'asc'],
  ['id', 'desc'],
  ['domain', 'asc'],
  ['domain', 'desc'],
] as const;

export type Filter = Pick<ListQuery, 'search' | 'favorite'>;

/** Filters of the list: none, searches (literal, too short for the trigram index, wildcard), favourites, both. */
export const FILTERS: Filter[] = [
  {},
  { search: { text: '1', literal: true } },
  { search: { text: 'ite-', literal: true } },
  { search: { text: 'e-_', literal: false } },
  { favorite: true },
  { favorite: false },
  { search: { text: '.example', literal: true }, favorite: false },
];

/** Every page of 10 up to `upTo` rows, in one order and filter. */
export async function allPages(
  store: ServerStore,
  accountId: number,
  [sortBy, sort]: (typeof ORDERS)[number],
  filter: Filter = {},
  upTo = 280,
) {
  const pages: { json: string; count: number; total: number }[] = [];
  for (let offset = 0; offset < upTo; offset += 10) {
    const query: ListQuery = { accountId, sortBy, sort, limit: 10, offset, ...filter };
    pages.push(await store.listWebsites(query, SHAPE));
  }
  return pages;
}

/** 240 sites in one account (60 in another), one in three a favourite; `insert` adds more. */
export async function seedDeepPages(store: ServerStore) {
  const { id: accountId } = await store.createAccount({ name: 'pages' });
  const { id: otherId } = await store.createAccount({ name: 'other' });
  const insert = (owner: number, n: number) =>
    store.insertWebsite(
      owner,
      `site-${(n * 7919) % 1000}-${n}.example`,
      { ...STORED_DEFAULTS, favoritedAt: n % 3 === 0 ? '2026-01-01T00:00:00' : null },
      new Date(),
    );
  for (let n = 0; n < 300; n++) await insert(n % 5 === 0 ? otherId : accountId, n);
  return { accountId, insert };
}

/** Sets or clears the favourite of these websites: moves them in and out of the favourite filters only. */
export async function toggleFavourites(store: ServerStore, accountId: number, ids: number[]): Promise<void> {
  for (const id of ids) {
    const website = await store.getWebsite(accountId, id);
    const favoritedAt = website?.favoritedAt ? null : '2026-02-02T00:00:00';
    await store.updateWebsite(accountId, id, { favoritedAt }, new Date());
  }
}
