/**
 * The status page's pure parts as tables: which target needs attention
 * first, pages of a large fleet, self-heal's state in words, anchors of
 * hostile domains, the drift chart's quarter hours, and the differences a
 * check keeps (bounded per class, with the baseline's values).
 */
import { describe, expect, it } from 'vitest';
import type { Baseline, Change, Plan } from '../../src/model/plan.js';
import { defaultSettings } from '../../src/model/website.js';
import { DIFFERENCES_KEPT, differencesOf } from '../../src/watch/differences.js';
import { BUCKET_MS, MemoryDriftHistory } from '../../src/watch/drift-history.js';
import { byAttention, fleetBody, healState, PAGE_SIZE, standingOf } from '../../src/watch/page/fleet-view.js';
import { ageText, anchorOf } from '../../src/watch/page/html.js';
import { targetBody } from '../../src/watch/page/target-view.js';
import type { TargetStatus } from '../../src/watch/status.js';

const NOW = Date.parse('2026-07-06T12:00:00Z');

function target(name: string, extra: Partial<TargetStatus> = {}): TargetStatus {
  return {
    target: name,
    service: 'https://stats.example.com',
    config: { ok: true },
    alerts: [],
    selfHeal: { mode: 'off' },
    recentHeals: [],
    recentAlerts: [],
    drift24h: { from: new Date(NOW).toISOString(), bucketSeconds: 900, counts: [] },
    ...extra,
  };
}

const counts = (drift: number, conflict = 0, pending = 0) => ({ in_sync: 5, pending, drift, conflict, unmanaged: 0 });
const failed = { at: new Date(NOW).toISOString(), seconds: 1, result: 'error' as const, error: 'HTTP 401' };

describe('attention', () => {
  it.each([
    { what: 'a failing check', status: target('a', { lastCheck: failed, counts: counts(3) }), standing: 'failing' },
    {
      what: 'an invalid configuration',
      status: target('b', { config: { ok: false, error: 'x.yaml:1:1: bad', since: '' }, counts: counts(0) }),
      standing: 'failing',
    },
    { what: 'a conflict beside drift', status: target('c', { counts: counts(1, 1) }), standing: 'conflict' },
    { what: 'drift beside pending', status: target('d', { counts: counts(2, 0, 4) }), standing: 'drift' },
    { what: 'pending only', status: target('e', { counts: counts(0, 0, 4) }), standing: 'pending' },
    { what: 'no check yet', status: target('f'), standing: 'unchecked' },
    { what: 'everything in sync', status: target('g', { counts: counts(0) }), standing: 'in_sync' },
  ])('$what stands $standing', ({ status, standing }) => {
    expect(standingOf(status)).toBe(standing);
  });

  it('sorts failing, conflict, drift, pending, unchecked, in sync; more sites of that class first, then by name', () => {
    const sorted = byAttention([
      target('sync', { counts: counts(0) }),
      target('drift-1', { counts: counts(1) }),
      target('new'),
      target('drift-9', { counts: counts(9) }),
      target('pending', { counts: counts(0, 0, 1) }),
      target('b-failing', { lastCheck: failed }),
      target('a-failing', { lastCheck: failed }),
      target('conflict', { counts: counts(5, 1) }),
    ]);
    expect(sorted.map((each) => each.target)).toEqual([
      'a-failing',
      'b-failing',
      'conflict',
      'drift-9',
      'drift-1',
      'pending',
      'new',
      'sync',
    ]);
  });
});

describe('a fleet larger than a page', () => {
  // The last five drift: first in the list, and left out by the in-sync filter.
  const targets = Array.from({ length: 2 * PAGE_SIZE + 5 }, (_, index) =>
    target(`t${String(index).padStart(3, '0')}`, { counts: counts(index >= 2 * PAGE_SIZE ? 1 : 0) }),
  );
  const status = {
    ready: true,
    cycles: 1,
    config: { ok: true },
    coordination: { replica: 'single', replicas: 1, owned: targets.length },
    targets,
  };
  const rows = (html: string) => [...html.matchAll(/<td class="name"><a href="targets\/(t\d+)">/g)].map((m) => m[1]);

  it('shows PAGE_SIZE rows a page, the totals over all, and links to the pages around', () => {
    const first = fleetBody(status, {}, NOW);
    expect(rows(first)).toHaveLength(PAGE_SIZE);
    expect(first).toContain(`<strong>${targets.length - 5}</strong> <span class="k-in_sync">In sync</span>`);
    expect(rows(first).slice(0, 6)).toEqual(['t200', 't201', 't202', 't203', 't204', 't000']);
    expect(first).toContain(`1–${PAGE_SIZE} of ${targets.length} targets`);
    expect(first).toContain('href="?page=2">Next →');
    expect(first).not.toContain('Previous');
    const last = fleetBody(status, { page: 3 }, NOW);
    expect(rows(last)).toEqual(['t195', 't196', 't197', 't198', 't199']);
    expect(last).toContain('href="?page=2">← Previous');
    expect(rows(fleetBody(status, { page: 99 }, NOW))).toEqual(rows(last)); // past the end: the last page
  });

  it('keeps the filter in the page links', () => {
    const html = fleetBody(status, { name: 'T', standing: 'in_sync' }, NOW);
    expect(rows(html)).toHaveLength(PAGE_SIZE);
    expect(html).toContain('href="?class=in_sync&amp;q=T&amp;page=2"');
    expect(html).toContain(`1–${PAGE_SIZE} of 200 matching of ${targets.length} targets`);
  });
});

describe('words and anchors', () => {
  const heal = (extra: object) =>
    target('t', {
      selfHeal: { mode: 'drift', stopped: false, consecutiveFailures: 0, insideWindow: true, last: [], ...extra },
    });
  it.each([
    { status: target('t'), words: 'off' },
    { status: heal({}), words: 'on' },
    { status: heal({ insideWindow: false }), words: 'outside its window' },
    { status: heal({ stopped: true, consecutiveFailures: 3 }), words: 'stopped after 3 failures' },
  ])('self-heal reads $words', ({ status, words }) => {
    expect(healState(status).replace(/<[^>]+>/g, '')).toMatch(new RegExp(`^${words}`));
  });

  it.each([
    ['b.example', 'site-b.example'],
    ['\u202Eelpmaxe.live', 'site-_202e_elpmaxe.live'],
    ['a_b.example', 'site-a_5f_b.example'],
    ['"><x>.example', 'site-_22__3e__3c_x_3e_.example'],
  ])('%j has the anchor %s', (domain, anchor) => {
    expect(anchorOf(domain)).toBe(anchor);
  });

  it.each([
    [0, '0 s ago'],
    [59_000, '59 s ago'],
    [60_000, '1 min ago'],
    [2 * 3_600_000 + 5 * 60_000, '2 h 5 min ago'],
    [50 * 3_600_000, '2 d ago'],
  ])('%i ms ago reads %s', (age, words) => {
    expect(ageText(NOW - age, NOW)).toBe(words);
  });
});

describe('a target’s page', () => {
  it('lists the last heals (time, change, result, reason) and the last alerts, escaped', () => {
    const at = new Date(NOW - 120_000).toISOString();
    const html = targetBody(
      target('t', {
        selfHeal: { mode: 'drift', stopped: false, consecutiveFailures: 1, insideWindow: true, last: [] },
        recentHeals: [
          { at, domain: 'a.example', action: 'update', result: 'applied' },
          { at, domain: 'b<i>.example', action: 'create', result: 'failed', reason: 'HTTP 422: domain <taken>' },
        ],
        recentAlerts: [{ at, alert: 'check_failing', status: 'firing', reminder: true, sites: 0, reason: 'HTTP 401' }],
      }),
      NOW,
    );
    expect(html).toContain('(2 min ago)</span></td><td>update <span class="domain">a.example</span></td>');
    expect(html).toContain(
      'create <span class="domain">b&lt;i&gt;.example</span></td><td><span class="badge k-failed">failed</span></td><td>HTTP 422: domain &lt;taken&gt;</td>',
    );
    expect(html).toContain('check failing</span></td><td>firing (reminder)</td><td class="n">0</td><td>HTTP 401</td>');
  });
});

describe('the drift history', () => {
  it('keeps the largest count of each quarter hour of the last day, and nothing older', () => {
    const history = new MemoryDriftHistory();
    const start = NOW - 30 * BUCKET_MS;
    history.record('t', start - 200 * BUCKET_MS, 9); // long gone
    // True when a quarter hour's count changed: what the shared store is told.
    const changed = [
      history.record('t', start, 2),
      history.record('t', start + 60_000, 5),
      history.record('t', start + 70_000, 1), // same quarter hour: 5 stays
      history.record('t', start + 80_000, 5),
      history.record('t', start - 200 * BUCKET_MS, 9), // older than the chart
      history.record('t', NOW, 0),
    ];
    expect(changed).toEqual([true, true, false, false, false, true]);
    const series = history.series('t', NOW);
    expect(series.counts).toHaveLength(96);
    expect(series.from).toBe(Math.floor(NOW / BUCKET_MS) * BUCKET_MS - 95 * BUCKET_MS);
    expect(series.counts.filter((count) => count !== null)).toEqual([5, 0]);
    expect(series.counts[95]).toBe(0);
    expect(series.counts[95 - 30]).toBe(5);
    expect(history.series('t', NOW + 200 * BUCKET_MS).counts.every((count) => count === null)).toBe(true);
    history.forget('t');
    expect(history.series('t', NOW).counts.every((count) => count === null)).toBe(true);
  });
});

describe('the differences a check keeps', () => {
  const update = (domain: string, changeClass: 'pending' | 'drift' | 'conflict'): Change => ({
    action: 'update',
    domain,
    id: 1,
    before: { ...defaultSettings(), privacy: 'public' },
    after: defaultSettings(),
    fields: [{ field: 'privacy', before: 'public', after: 'private', class: changeClass }],
    ignored: [],
    fingerprint: 'f',
    class: changeClass,
  });
  const planOf = (changes: Change[]): Plan => ({
    changes,
    notes: [],
    safety: [],
    summary: {
      create: 0,
      update: changes.length,
      delete: 0,
      unchanged: 0,
      outOfScope: 0,
      kept: 0,
      unverifiable: 0,
      ignoredDrift: 0,
    },
  });

  it('keeps the first DIFFERENCES_KEPT of each class by domain, with the baseline’s value for pending and conflict', () => {
    const drift = Array.from({ length: DIFFERENCES_KEPT + 3 }, (_, i) =>
      update(`d${String(i).padStart(3, '0')}.example`, 'drift'),
    );
    const baseline: Baseline = {
      ref: { ref: 'sitesync-applied', commit: 'c'.repeat(40), source: 'default' },
      websites: [{ domain: 'c.example', settings: { ...defaultSettings(), privacy: 'public' }, ignoreChanges: [] }],
      policy: {} as Baseline['policy'],
    };
    const kept = differencesOf(
      planOf([...drift.reverse(), update('c.example', 'conflict'), update('p.example', 'pending')]),
      baseline,
    );
    expect(kept.filter((each) => each.class === 'drift')).toHaveLength(DIFFERENCES_KEPT);
    expect(kept.find((each) => each.class === 'drift')?.domain).toBe('d000.example');
    expect(kept.find((each) => each.domain === 'c.example')?.baseline).toEqual({
      listed: true,
      fields: { privacy: 'public' },
    });
    expect(kept.find((each) => each.domain === 'p.example')?.baseline).toEqual({ listed: false, fields: {} });
    expect(kept.find((each) => each.domain === 'd000.example')?.baseline).toBeUndefined();
  });
});
