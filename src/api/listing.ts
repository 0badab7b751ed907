/**
 * Reading a whole listing: `per_page=100` in a stable order (`sort_by=id&sort=asc`),
 * pages counted by `meta.last_page` (then fetched concurrently), else walked by
 * `links.next`, else until a short page. A listing that changes while it is
 * read (total moves, an id twice, a count that does not add up) is read again;
 * one that cannot be completed is an error, never a partial result: a partial
 * listing would make prune delete what it did not see.
 */
import { canonicalDomain, searchSpellings } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import { eachBounded } from '../model/pool.js';
import type { LiveWebsite } from '../model/website.js';
import type { ListPage } from './wire.js';

export const PAGE_SIZE = 100;
const LISTING_ATTEMPTS = 3;
/** 100 pages of 100 is a large account; a million sites means a broken `last_page`. */
const MAX_PAGES = 10_000;

/** Fetches page `n` (1-based) of a query. */
export type PageFetcher = (page: number, signal: AbortSignal | undefined) => Promise<ListPage>;

/** Whether a page follows page `number`: by `last_page`, else `links.next`, else a full page. */
function hasMore(page: ListPage, number: number): boolean {
  if (page.websites.length === 0) return false;
  if (page.lastPage !== undefined) return number < page.lastPage;
  if (page.hasNext !== undefined) return page.hasNext;
  return page.websites.length >= (page.perPage ?? PAGE_SIZE);
}

/** Walks pages in order until `match` finds a site; undefined when none does. */
export async function findFirst(
  fetchPage: PageFetcher,
  match: (site: LiveWebsite) => boolean,
  signal?: AbortSignal,
): Promise<LiveWebsite | undefined> {
  for (let number = 1; number <= MAX_PAGES; number++) {
    const page = await fetchPage(number, signal);
    const found = page.websites.find(match);
    if (found || !hasMore(page, number)) return found;
  }
  return undefined;
}

/** Fetches page `n` (1-based) of the substring search for `search` (undefined: the whole account). */
export type SearchPageFetcher = (
  search: string | undefined,
  page: number,
  signal: AbortSignal | undefined,
) => Promise<ListPage>;

/**
 * Every live site whose canonical domain is one of `domains`, through one
 * `search` per spelling the service may have stored (`searchSpellings`: the
 * ASCII form, and the Unicode form of an IDN) instead of the whole account:
 * a targeted plan of 1 site on an account of 10,000 costs 1 request, not 100.
 * The search is a substring match (and `_` / `%` are SQL wildcards on the
 * real service), so each search is read completely (every page, the same
 * snapshot checks as a full listing) and kept only where the canonical domain
 * is exactly the one asked for. An IDN that none of its searches finds may be
 * stored in a spelling no search reaches, and a plan would create it a second
 * time: then the whole account is listed instead. Sites come back in id
 * order, like a full listing.
 */
export async function listNamed(
  fetchPage: SearchPageFetcher,
  domains: readonly string[],
  concurrency: number,
  signal?: AbortSignal,
): Promise<LiveWebsite[]> {
  const wanted = new Set(domains.map(canonicalDomain));
  const named = (sites: LiveWebsite[]) => sites.filter((site) => wanted.has(canonicalDomain(site.domain)));
  const search = (text: string | undefined) =>
    listEverything((page, pageSignal) => fetchPage(text, page, pageSignal), concurrency, signal);
  const found = new Map<number, LiveWebsite>();
  for (const domain of wanted) {
    const spellings = searchSpellings(domain);
    let hit = false;
    for (const spelling of spellings) {
      for (const site of await search(spelling)) {
        if (canonicalDomain(site.domain) !== domain) continue;
        found.set(site.id, site);
        hit = true;
      }
    }
    if (!hit && spellings.length > 1) return named(await search(undefined));
  }
  return [...found.values()].sort((a, b) => a.id - b.id);
}

export async function listEverything(
  fetchPage: PageFetcher,
  concurrency: number,
  signal?: AbortSignal,
): Promise<LiveWebsite[]> {
  let problem = '';
  for (let attempt = 1; attempt <= LISTING_ATTEMPTS; attempt++) {
    const pages = await readPages(fetchPage, concurrency, signal);
    problem = inconsistency(pages);
    if (problem === '') return pages.flatMap((page) => page.websites);
  }
  throw new SitesyncError(
    'protocol',
    `the website list changed while it was read, ${LISTING_ATTEMPTS} times (${problem}); nothing was changed, try again when no one else is editing the account`,
    { reason: 'unstable_listing' },
  );
}

async function readPages(fetchPage: PageFetcher, concurrency: number, signal?: AbortSignal): Promise<ListPage[]> {
  const first = await fetchPage(1, signal);
  if (first.lastPage === undefined) return walkSequentially(first, fetchPage, signal);
  if (first.lastPage > MAX_PAGES) {
    throw new SitesyncError('protocol', `the listing claims ${first.lastPage} pages; refusing to read that many`);
  }
  const rest = Array.from({ length: first.lastPage - 1 }, (_, i) => i + 2); // last_page 0: length -1 counts as 0
  return [first, ...(await mapConcurrently(rest, concurrency, signal, fetchPage))];
}

async function walkSequentially(first: ListPage, fetchPage: PageFetcher, signal?: AbortSignal): Promise<ListPage[]> {
  const pages = [first];
  let page = first;
  while (hasMore(page, pages.length)) {
    if (pages.length >= MAX_PAGES)
      throw new SitesyncError('protocol', `the listing did not end after ${MAX_PAGES} pages`);
    page = await fetchPage(pages.length + 1, signal);
    pages.push(page);
  }
  return pages;
}

/** Empty when the pages form one consistent snapshot; else what is wrong. */
function inconsistency(pages: ListPage[]): string {
  const total = pages[0]?.total;
  const seen = new Set<number>();
  for (const [index, page] of pages.entries()) {
    if (page.total !== total) return `total went from ${total} to ${page.total}`;
    if (page.currentPage !== undefined && page.currentPage !== index + 1) {
      return `asked for page ${index + 1}, got page ${page.currentPage}`;
    }
    for (const site of page.websites) {
      if (seen.has(site.id)) return `website ${site.id} appeared on two pages`;
      seen.add(site.id);
    }
  }
  if (total !== undefined && seen.size !== total) return `${seen.size} websites read, ${total} announced`;
  return '';
}

/** Runs `work` over `items` with at most `limit` in flight, in order; the first failure stops the rest. */
async function mapConcurrently<T, R>(
  items: T[],
  limit: number,
  signal: AbortSignal | undefined,
  work: (item: T, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const controller = new AbortController();
  const stop = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  const results: R[] = new Array(items.length);
  try {
    await eachBounded(items, limit, async (item, index) => {
      try {
        results[index] = await work(item, controller.signal);
      } catch (error) {
        controller.abort(error); // the first failure stops the pages in flight
        throw error;
      }
    });
    return results;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}
