/**
 * Reads a set of sites with whichever costs fewer requests: one full listing
 * (pages of 100) or one read per site. At 60 requests a minute this is the
 * main cost of a staleness check and of the read-back after an apply.
 */
import type { WebsitesApi } from '../api/types.js';
import { canonicalDomain, indexLiveByDomain } from '../model/domain.js';
import { eachBounded } from '../model/pool.js';
import type { LiveWebsite } from '../model/website.js';

/** A site to read: by id when it exists in the plan, else by domain (a planned create). */
export interface ReadTarget {
  domain: string;
  id: number | null;
}

export const PAGE_SIZE = 100;
const READ_PARALLELISM = 4;

/** Requests a full listing costs; unknown size counts as unbounded. */
export function listingCost(liveCount: number | undefined): number {
  return liveCount === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.ceil(liveCount / PAGE_SIZE));
}

/** Live state of each target by domain; undefined when it does not exist (or its id is gone). */
export async function readTargets(
  api: WebsitesApi,
  targets: readonly ReadTarget[],
  liveCount: number | undefined,
  signal?: AbortSignal,
): Promise<Map<string, LiveWebsite | undefined>> {
  const found = new Map<string, LiveWebsite | undefined>();
  if (listingCost(liveCount) < targets.length) {
    const all = await api.listWebsites(signal ? { signal } : {});
    const byId = new Map(all.map((site) => [site.id, site]));
    const byDomain = indexLiveByDomain(all).byDomain;
    for (const target of targets) {
      found.set(target.domain, target.id === null ? byDomain.get(canonicalDomain(target.domain)) : byId.get(target.id));
    }
    return found;
  }
  await eachBounded(targets, READ_PARALLELISM, async (target) => {
    const options = signal ? { signal } : {};
    const site =
      target.id === null ? await api.findWebsite(target.domain, options) : await api.getWebsite(target.id, options);
    found.set(target.domain, site);
  });
  return found;
}
