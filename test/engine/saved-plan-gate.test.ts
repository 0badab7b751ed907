/**
 * The safety gate on the saved-plan path of the engine (apply-target.ts): a
 * reviewed plan file that breaks a limit is refused without its
 * acknowledgements, exactly as a plan made on the spot is; a site that moved
 * since the plan is stale before it is unsafe; and a plan whose every change
 * is already live has nothing left to acknowledge (issue 39, mutant 1 and 9).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client, insertWebsite } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { applySaved, engineFixture, liveDomains, savedPlan } from './support.js';

const KEPT = ['a.example', 'b.example'];
const PRUNED = ['c.example', 'd.example', 'e.example', 'f.example'];
const CONFIG = `version: 1
prune: true
limits: { max_deletes: 3 }
websites:
${KEPT.map((domain) => `  - domain: ${domain}\n`).join('')}`;

/** Six live sites, two configured with prune on: a plan of 4 deletes over `max_deletes: 3`. */
async function overTheLimit() {
  const dir = tempDir('engine-gate');
  writeFileSync(join(dir, 'websites.yaml'), CONFIG);
  const fixture = await engineFixture(dir);
  const ids: Record<string, number> = {};
  for (const domain of [...KEPT, ...PRUNED]) ids[domain] = await insertWebsite(fixture.server, domain);
  const saved = await savedPlan(fixture);
  expect(saved.plan.changes.map((change) => `${change.action} ${change.domain}`)).toEqual(
    PRUNED.map((domain) => `delete ${domain}`),
  );
  return { fixture, ids, saved };
}

describe('a saved plan over a safety limit', () => {
  it('is refused without its acknowledgements, and nothing is deleted', async () => {
    const { fixture, saved } = await overTheLimit();
    const outcome = await applySaved(fixture, saved);
    expect(outcome.kind).toBe('refused');
    if (outcome.kind !== 'refused' || outcome.refusal.reason !== 'unsafe') throw new Error(JSON.stringify(outcome));
    expect(outcome.refusal.refusal.needed.map(({ violation }) => violation.rule)).toEqual(['max_deletes']);
    expect(await liveDomains(fixture.server)).toEqual([...KEPT, ...PRUNED]);
  });

  it('is applied with them, and once applied has nothing left to acknowledge', async () => {
    const { fixture, saved } = await overTheLimit();
    const applied = await applySaved(fixture, saved, { acks: { allowDelete: [], maxDeletes: 4 } });
    expect(applied.kind).toBe('applied');
    expect(await liveDomains(fixture.server)).toEqual(KEPT);
    // The same file again (a retried CI job): every delete is live already, so nothing is refused or written.
    const again = await applySaved(fixture, saved);
    expect(again.kind).toBe('applied');
    if (again.kind !== 'applied') return;
    expect(again.result.counts).toMatchObject({ applied: 0, skipped: 4 });
  });

  it('is stale, not unsafe, when a site it deletes moved since the plan', async () => {
    const { fixture, ids, saved } = await overTheLimit();
    await client(fixture.server)('PATCH', `/api/v1/websites/${ids['d.example']}`, { form: { email: '1' } });
    const outcome = await applySaved(fixture, saved);
    expect(outcome.kind === 'refused' && outcome.refusal).toMatchObject({
      reason: 'stale',
      moved: [expect.objectContaining({ domain: 'd.example' })],
    });
    expect(await liveDomains(fixture.server)).toEqual([...KEPT, ...PRUNED]);
  });
});
