/**
 * A listing walked page by page (no `last_page`: `links.next` or full pages)
 * that never ends is refused after 10,000 pages, never read for ever and
 * never used half-read; so is a search for the first match. 10,000 real
 * requests would take the suite's time, so the pages come from memory here:
 * what is tested is the walk (listing.ts), and the requests it makes.
 */
import { describe, expect, it } from 'vitest';
import { findFirst, listEverything, type PageFetcher } from '../../src/api/listing.js';
import type { ListPage } from '../../src/api/wire.js';
import type { LiveWebsite } from '../../src/model/website.js';

const site = (id: number): LiveWebsite => ({
  id,
  domain: `site-${id}.example.com`,
  settings: {},
  hasPassword: false,
});

/** Pages of one site each that always announce another (a server whose `next` link never ends). */
function endless(shape: 'next link' | 'full pages'): { fetchPage: PageFetcher; calls: () => number } {
  let calls = 0;
  const fetchPage: PageFetcher = async (page) => {
    calls += 1;
    const answer: ListPage = { websites: [site(page)], perPage: 1 };
    if (shape === 'next link') answer.hasNext = true;
    return answer;
  };
  return { fetchPage, calls: () => calls };
}

describe('a listing that never ends', () => {
  it.each(['next link', 'full pages'] as const)('by %s: refused after 10,000 pages, with no listing', async (shape) => {
    const { fetchPage, calls } = endless(shape);
    await expect(listEverything(fetchPage, 4)).rejects.toMatchObject({
      code: 'protocol',
      message: 'the listing did not end after 10000 pages',
    });
    expect(calls()).toBe(10_000);
  });

  it('a search for a site it never finds stops after 10,000 pages', async () => {
    const { fetchPage, calls } = endless('next link');
    expect(await findFirst(fetchPage, (found) => found.id === 0)).toBeUndefined();
    expect(calls()).toBe(10_000);
  });
});
