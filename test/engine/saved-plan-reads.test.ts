/**
 * How a saved plan's apply reads the account (requests are scarce: the real
 * service allows 60 a minute). A plan of the whole account checks freshness
 * and reads back through one listing; a plan made from a targeted listing
 * (--only exact domains, no prune in their scope) does not know the
 * account's size, so it reads its sites one by one and never lists; a retried plan whose every change is
 * live reads the account once (issue 39, the engine gate's surviving mutants
 * of apply-target.ts's liveCount and second freshness read).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { insertWebsite } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { applySaved, type EngineFixture, engineFixture, liveDomains, savedPlan } from './support.js';

const config = (maxDeletes: number) => `version: 1
prune: true
limits: { max_deletes: ${maxDeletes} }
websites:
  - domain: a.example
`;
const PRUNED = ['c.example', 'd.example', 'e.example'];

/** a.example configured; c, d and e.example live only: three deletes, within the limit by default. */
async function threeDeletes(maxDeletes = 3) {
  const dir = tempDir('engine-reads');
  writeFileSync(join(dir, 'websites.yaml'), config(maxDeletes));
  const fixture = await engineFixture(dir);
  for (const domain of ['a.example', ...PRUNED]) await insertWebsite(fixture.server, domain);
  return fixture;
}

/** Counts the engine's listings and per-site reads, on the HTTP client it would make anyway. */
function countReads(fixture: EngineFixture) {
  const reads = { listings: 0, sites: 0 };
  fixture.context.openApi = (settings) => {
    const api = createClient(settings);
    const list = api.listWebsites.bind(api);
    const get = api.getWebsite.bind(api);
    api.listWebsites = (options) => {
      reads.listings += 1;
      return list(options);
    };
    api.getWebsite = (id, options) => {
      reads.sites += 1;
      return get(id, options);
    };
    return api;
  };
  return reads;
}

describe('a saved plan applied', () => {
  it('of the whole account: freshness and read-back through listings, no per-site read', async () => {
    const fixture = await threeDeletes();
    const saved = await savedPlan(fixture);
    const reads = countReads(fixture);
    expect((await applySaved(fixture, saved)).kind).toBe('applied');
    expect(await liveDomains(fixture.server)).toEqual(['a.example']);
    expect(reads.sites).toBe(0);
    expect(reads.listings).toBeGreaterThan(0);
  });

  it('made from a targeted listing (--only exact domains): per-site reads, never the whole account', async () => {
    const fixture = await threeDeletes();
    // Without prune in their scope, exact --only domains are searched, not listed with the account.
    const emailed = (domain: string) => `  - domain: ${domain}\n    email: true\n`;
    writeFileSync(join(fixture.dir, 'websites.yaml'), `version: 1\nwebsites:\n${PRUNED.map(emailed).join('')}`);
    const only = ['c.example', 'd.example'];
    const saved = await savedPlan(fixture, { only });
    expect(saved.plan.changes.map((change) => `${change.action} ${change.domain}`)).toEqual([
      'update c.example',
      'update d.example',
    ]);
    const reads = countReads(fixture);
    expect((await applySaved(fixture, saved, { only })).kind).toBe('applied');
    expect(reads.listings).toBe(0);
    expect(reads.sites).toBeGreaterThan(0);
  });

  it('again once every change is live (a retried CI job over a limit): one listing, nothing written', async () => {
    const fixture = await threeDeletes(2);
    const saved = await savedPlan(fixture);
    expect((await applySaved(fixture, saved, { acks: { allowDelete: [], maxDeletes: 3 } })).kind).toBe('applied');
    const reads = countReads(fixture);
    const again = await applySaved(fixture, saved);
    expect(again.kind === 'applied' && again.result.counts).toMatchObject({ applied: 0, skipped: 3 });
    expect(reads).toEqual({ listings: 1, sites: 0 });
  });
});
