/**
 * The checks of apply-target.ts between a plan and its first write (issue 39,
 * the engine gate's surviving mutants): a site that moves while the person is
 * asked makes the plan stale (a saved plan's, and one made on the spot), an
 * interrupt between the check and the writes writes nothing, a saved plan
 * made with --only or --skip cannot move the applied tag, and a plan with no
 * change is "nothing to do"; and every client it opens is closed, whatever
 * the outcome.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { memoryJournal } from '../../src/apply/journal.js';
import { type ApplyPorts, applyTarget, checkTarget } from '../../src/engine/apply-target.js';
import { recordWith, startFaultProxy } from '../helpers/fault-proxy.js';
import { client, insertWebsite } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { applyRequest, applySaved, type EngineFixture, engineFixture, liveDomains, savedPlan } from './support.js';

const CONFIG = `version: 1
prune: true
limits: { max_deletes: 3 }
websites:
  - domain: a.example
`;

/** a.example configured, c.example live only: a plan of one delete, within the limits. */
async function oneDelete() {
  const dir = tempDir('engine-checks');
  writeFileSync(join(dir, 'websites.yaml'), CONFIG);
  const fixture = await engineFixture(dir);
  await insertWebsite(fixture.server, 'a.example');
  const doomed = await insertWebsite(fixture.server, 'c.example');
  return { fixture, doomed };
}

describe('a site that moves while the person is asked', () => {
  for (const source of ['a saved plan', 'a plan made on the spot'] as const) {
    it(`makes ${source} stale: nothing is deleted`, async () => {
      const { fixture, doomed } = await oneDelete();
      const saved = source === 'a saved plan' ? await savedPlan(fixture) : undefined;
      const asked: string[] = [];
      const ports: ApplyPorts = {
        confirm: async (plan) => {
          asked.push(...plan.changes.map((change) => `${change.action} ${change.domain}`));
          // Someone edits the site meanwhile: the delete would drop their edit unseen.
          await client(fixture.server)('PATCH', `/api/v1/websites/${doomed}`, { form: { email: '1' } });
          return 'yes';
        },
      };
      const outcome = await applyTarget(applyRequest(), fixture.context, ports, saved && { saved, label: 'plan.json' });
      expect(asked).toEqual(['delete c.example']);
      expect(outcome.kind === 'refused' && outcome.refusal).toMatchObject({
        reason: 'stale',
        moved: [expect.objectContaining({ domain: 'c.example' })],
      });
      expect(await liveDomains(fixture.server)).toEqual(['a.example', 'c.example']);
    });
  }

  it('an answer other than yes writes nothing', async () => {
    const { fixture } = await oneDelete();
    const outcome = await applyTarget(applyRequest(), fixture.context, { confirm: async () => 'no' });
    expect(outcome.kind === 'refused' && outcome.refusal).toEqual({ reason: 'cancelled', answer: 'no' });
    expect(await liveDomains(fixture.server)).toEqual(['a.example', 'c.example']);
  });
});

it('an interrupt after the checks, before the writes, writes nothing', async () => {
  const { fixture } = await oneDelete();
  const interrupt = new AbortController();
  fixture.context.signal = interrupt.signal;
  const checked = await checkTarget(applyRequest(), fixture.context);
  if (checked.kind !== 'ready') throw new Error(JSON.stringify(checked));
  interrupt.abort();
  const outcome = await checked.write();
  expect(outcome.kind === 'refused' && outcome.refusal).toEqual({ reason: 'interrupted' });
  expect(await liveDomains(fixture.server)).toEqual(['a.example', 'c.example']);
});

it('a configuration already live is nothing to do', async () => {
  const { fixture } = await oneDelete();
  expect((await applyTarget(applyRequest(), fixture.context)).kind).toBe('applied');
  expect((await applyTarget(applyRequest(), fixture.context)).kind).toBe('nothing_to_do');
});

describe('a saved plan made with --only or --skip', () => {
  for (const narrowed of [{ only: ['c.example'] }, { skip: ['a.example'] }]) {
    it(`(${JSON.stringify(narrowed)}) cannot move the applied tag, and applies without it`, async () => {
      const { fixture } = await oneDelete();
      const saved = await savedPlan(fixture, narrowed);
      await expect(applySaved(fixture, saved, { ...narrowed, markApplied: 'sitesync-applied' })).rejects.toThrow(
        '--mark-applied cannot apply plan.json: it was planned with --only or --skip, and the tag marks a whole apply',
      );
      expect(await liveDomains(fixture.server)).toEqual(['a.example', 'c.example']);
      expect((await applySaved(fixture, saved, narrowed)).kind).toBe('applied');
      expect(await liveDomains(fixture.server)).toEqual(['a.example']);
    });
  }
});

describe('every client opened is closed', () => {
  /** The HTTP client as the engine makes it, counting how many were opened and closed. */
  function countClients(fixture: EngineFixture) {
    const counts = { opened: 0, closed: 0 };
    fixture.context.openApi = (settings) => {
      const api = createClient(settings);
      const close = api.close.bind(api);
      counts.opened += 1;
      api.close = async () => {
        counts.closed += 1;
        await close();
      };
      return api;
    };
    return counts;
  }

  it('after a refusal, a written plan, and a check given up', async () => {
    const { fixture } = await oneDelete();
    const counts = countClients(fixture);
    const refused = await applyTarget(applyRequest(), fixture.context, { confirm: async () => 'no' });
    expect(refused.kind).toBe('refused');
    expect(counts).toEqual({ opened: 1, closed: 1 });

    const given = await checkTarget(applyRequest(), fixture.context);
    if (given.kind !== 'ready') throw new Error(JSON.stringify(given));
    expect(counts).toEqual({ opened: 2, closed: 1 }); // ready: open until written or released
    await given.release();
    expect(counts).toEqual({ opened: 2, closed: 2 });

    expect((await applyTarget(applyRequest(), fixture.context)).kind).toBe('applied');
    expect(counts).toEqual({ opened: 3, closed: 3 });
  });
});

describe('error policies at the gate', () => {
  const POLICY = `policies:
  - name: reports-on
    rule: site.email
    message: every site sends its reports
`;

  it('refuse nothing when the plan has no change, even where a site in sync breaks one', async () => {
    const dir = tempDir('engine-policy-in-sync');
    writeFileSync(join(dir, 'websites.yaml'), `version: 1\n${POLICY}websites:\n  - domain: a.example\n`);
    const fixture = await engineFixture(dir);
    await insertWebsite(fixture.server, 'a.example');
    expect((await applyTarget(applyRequest(), fixture.context)).kind).toBe('nothing_to_do');
  });

  it('refuse an --allow-policy that names no broken one, saying the plan breaks none', async () => {
    const dir = tempDir('engine-policy-typo');
    writeFileSync(
      join(dir, 'websites.yaml'),
      `version: 1\n${POLICY}websites:\n  - domain: a.example\n    email: true\n`,
    );
    const fixture = await engineFixture(dir);
    const request = applyRequest({ acks: { allowDelete: [], allowPolicy: ['reports-on:a.exmaple'] } });
    await expect(applyTarget(request, fixture.context)).rejects.toThrow(
      /^--allow-policy reports-on:a\.exmaple names no broken error policy \(the plan breaks no error policy\)$/,
    );
    expect(await liveDomains(fixture.server)).toEqual([]);
  });
});

describe('the journal of an apply', () => {
  it('ends with each divergence the read-back found, worded, and is closed', async () => {
    const dir = tempDir('engine-journal');
    writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example\n    privacy: private\n');
    const fixture = await engineFixture(dir);
    const id = await insertWebsite(fixture.server, 'a.example', { values: { privacy: 0 } });
    // A service that answers the write and the read-back with the site as it was: public.
    const proxy = await startFaultProxy({
      target: fixture.server.url,
      rewrite: (request, body) =>
        request.path === `/api/v1/websites/${id}` ? recordWith(body, { privacy: 0 }) : undefined,
    });
    const journal = memoryJournal();
    let closed = 0;
    const context = { ...fixture.context, env: { ...fixture.context.env, SITESYNC_URL: proxy.url } };
    try {
      const outcome = await applyTarget(applyRequest(), context, {
        openJournal: () => ({ ...journal, close: () => void closed++ }),
      });
      expect(outcome.kind).toBe('applied');
    } finally {
      await proxy.close();
    }
    expect(journal.entries.at(-1)).toMatchObject({
      event: 'end',
      divergences: [
        { domain: 'a.example', kind: 'field', field: 'privacy', detail: 'privacy: wanted private, is public' },
      ],
    });
    expect(closed).toBe(1);
  });
});

describe('the requests an apply announces', () => {
  // Two updates and one create. The read-back lists the account when that takes fewer requests than
  // reading each site: 100 sites a page, the created site counted.
  for (const [live, after] of [
    [99, 1],
    [100, 2],
  ] as const) {
    it(`counts the site it creates: ${live} live, ${after} request${after === 1 ? '' : 's'} after the writes`, async () => {
      const dir = tempDir('engine-requests-after');
      writeFileSync(
        join(dir, 'websites.yaml'),
        'version: 1\ndefaults:\n  privacy: private\nwebsites:\n  - domain: a.example\n  - domain: b.example\n  - domain: new.example\n',
      );
      const fixture = await engineFixture(dir);
      await insertWebsite(fixture.server, 'a.example', { values: { privacy: 0 } });
      await insertWebsite(fixture.server, 'b.example', { values: { privacy: 0 } });
      for (let index = 2; index < live; index++) await insertWebsite(fixture.server, `other-${index}.example`);
      expect((await applyTarget(applyRequest(), fixture.context)).kind).toBe('applied');
      expect(fixture.context.seen.find((event) => event.type === 'writing')).toMatchObject({
        total: 3,
        requestsAfter: after,
      });
    });
  }
});
