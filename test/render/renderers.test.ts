import { describe, expect, it } from 'vitest';
import { explain } from '../../src/plan/explain.js';
import { plan } from '../../src/plan/planner.js';
import { renderHuman } from '../../src/render/human.js';
import { renderJson } from '../../src/render/json.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { desired, live, policy } from '../plan/builders.js';
import { desiredSites, fixturePlan, fixturePolicy, liveSites, PASSWORD } from './fixture.js';

const TARGET = 'https://analytics.example.com';
const golden = (name: string): string => `./golden/${name}`;

describe('renderers: golden files (update with vitest -u, review the diff)', () => {
  const result = fixturePlan();

  it('human, without colour', async () => {
    await expect(renderHuman(result, { color: false, target: TARGET })).toMatchFileSnapshot(golden('plan.golden.txt'));
  });

  it('human, with colour', async () => {
    await expect(renderHuman(result, { color: true, target: TARGET })).toMatchFileSnapshot(
      golden('plan-color.golden.txt'),
    );
  });

  it('human, with --explain', async () => {
    const explained = explain(desiredSites, liveSites, { ...fixturePolicy, only: ['blog.*', 'shop.*'] });
    const text = renderHuman(plan(desiredSites, liveSites, { ...fixturePolicy, only: ['blog.*', 'shop.*'] }), {
      color: false,
      explain: explained,
    });
    await expect(text).toMatchFileSnapshot(golden('plan-explain.golden.txt'));
  });

  it('human, no changes', async () => {
    const empty = plan([desired('a.com')], [live(1, 'a.com'), live(2, 'b.com')], policy());
    await expect(renderHuman(empty, { color: false })).toMatchFileSnapshot(golden('plan-empty.golden.txt'));
  });

  it('json', async () => {
    await expect(renderJson(result, { target: TARGET })).toMatchFileSnapshot(golden('plan.golden.json'));
  });

  it('markdown', async () => {
    await expect(renderMarkdown(result, { target: TARGET })).toMatchFileSnapshot(golden('plan.golden.md'));
  });
});

describe('renderers: behaviour', () => {
  const result = fixturePlan();

  it('puts the destructive changes first and says what is lost', () => {
    const text = renderHuman(result, { color: false });
    const lines = text.split('\n');
    expect(lines[0]).toBe('DESTRUCTIVE: 2 websites will be deleted');
    expect(lines[1]).toBe(
      '  - DELETE legacy.example.com (id 13): its whole analytics history is lost (tracked since 2019-01-02)',
    );
  });

  it('colours only when asked', () => {
    expect(renderHuman(result, { color: false })).not.toContain('\u001b[');
    expect(renderHuman(result, { color: true })).toContain('\u001b[31m');
  });

  it('never shows a password value', () => {
    for (const [text, writeOnly] of [
      [renderHuman(result, { color: true, explain: explain(desiredSites, liveSites, fixturePolicy) }), '(write-only)'],
      [renderJson(result, { explain: explain(desiredSites, liveSites, fixturePolicy) }), '"writeOnly": true'],
      [renderMarkdown(result), '(write-only)'],
    ]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).toContain(writeOnly);
    }
  });

  it('keeps Markdown under the limit with thousands of deletes and suspected renames', () => {
    const domains = Array.from({ length: 2000 }, (_, i) => `site-${String(i).padStart(4, '0')}.example.com`);
    const big = plan(
      domains.map((domain) => desired(`new-${domain}`)),
      domains.map((domain, i) => live(i + 1, domain)),
      policy({ prune: true }),
    );
    expect(big.safety).toHaveLength(2 + 2000);
    const text = renderMarkdown(big);
    expect(text.length).toBeLessThan(60_000);
    expect(text).toContain('> - … and 1950 more\n');
    expect(text).toContain('- … and 1952 more\n');
  });

  it('shows drift in ignore_changes fields field by field, without counting it as a change', () => {
    const ignoring = { ignoreChanges: ['email' as const] };
    const drifted = plan(
      [
        desired('a.example', { email: true }, ignoring),
        desired('b.example', { email: true, favorite: true }, ignoring),
      ],
      [live(1, 'a.example'), live(2, 'b.example')],
      policy({ prune: true }),
    );
    expect(renderHuman(drifted, { color: false })).toBe(
      [
        '~ b.example (id 2) will be updated',
        '    favorite: false → true',
        '    email: false → true (ignored: ignore_changes)',
        '',
        '= a.example (id 1) unchanged: drift only in ignore_changes fields',
        '    email: false → true (ignored: ignore_changes)',
        '',
        'Note: prune is on and no manage scope is set: every website of the account that is not listed will be deleted (within limits)',
        'Note: 2 fields drifted but are in ignore_changes: not changed (a.example, b.example)',
        '',
        'Coverage: 2 of 2 live websites managed (100%).',
        'Plan: 0 to create, 1 to update, 0 to delete; 1 unchanged.',
        '',
      ].join('\n'),
    );
    const markdown = renderMarkdown(drifted);
    expect(markdown).toContain(
      '<details><summary><code>= a.example (id 1) unchanged: drift only in ignore_changes fields</code></summary>\n\n```diff\n  email: false → true (ignored: ignore_changes)\n```\n',
    );
    const onlyDrift = plan([desired('a.example', { email: true }, ignoring)], [live(1, 'a.example')], policy());
    expect(onlyDrift.changes).toEqual([]);
    expect(renderHuman(onlyDrift, { color: false })).toContain(
      '= a.example (id 1) unchanged: drift only in ignore_changes fields\n    email: false → true (ignored: ignore_changes)\n',
    );
  });

  it('a classified plan shows its classes and its coverage (and an expired rule) in every format', () => {
    const ruled = {
      ...desired('a.example', { email: true }, { ignoreChanges: ['email' as const] }),
      ignoreRules: [{ field: 'email' as const, until: '2026-06-30' }],
    };
    const classified = plan(
      [ruled, desired('b.example', { favorite: true })],
      [live(1, 'a.example'), live(2, 'b.example'), live(3, 'stranger.example')],
      policy({ today: '2026-07-01', manage: { include: ['*.example'], exclude: ['stranger.example'] } }),
      {
        ref: { ref: 'main', commit: 'c'.repeat(40), source: 'option' },
        websites: [ruled, desired('b.example', { favorite: true })],
        policy: policy(),
      },
    );
    const coverage = 'Coverage: 2 of 3 live websites managed (66.6%); 1 unmanaged: 1 outside manage.';
    const human = renderHuman(classified, { color: false });
    expect(human).toContain('~ a.example (id 1) will be updated [pending]\n    email: false → true [pending]\n');
    expect(human).toContain('~ b.example (id 2) will be updated [drift]\n');
    expect(human).toContain('Note: ignore_changes for email expired on 2026-06-30 (UTC)');
    expect(human).toContain(`${coverage}\n`);
    expect(human).toContain('Classes: 1 pending, 1 drift, 0 conflicts.');
    const markdown = renderMarkdown(classified);
    expect(markdown).toContain(coverage);
    expect(markdown).toContain('| Pending | Drift | Conflict |');
    const document = JSON.parse(renderJson(classified));
    expect(document.coverage).toMatchObject({ live: 3, managed: 2, outOfScope: 1, percent: 66.6 });
    expect(document.summary).toMatchObject({ pending: 1, drift: 1, conflict: 0 });
    expect(document.notes.map((note: { kind: string }) => note.kind)).toContain('ignore_expired');
  });

  it('no classes without a baseline: --unlisted-is-drift alone shows its note, not a Classes line', () => {
    const unlisted = plan([desired('a.example')], [live(1, 'a.example'), live(2, 'stranger.example')], {
      ...policy(),
      unlistedIsDrift: true,
    });
    expect(unlisted.summary.drift).toBe(1);
    expect(renderHuman(unlisted, { color: false })).not.toContain('Classes:');
    expect(renderMarkdown(unlisted)).not.toContain('| Pending | Drift | Conflict |');
    expect(renderHuman(unlisted, { color: false })).toContain('stranger.example');
  });

  it('keeps Markdown under the limit by summarising the tail', () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      desired(`site-${String(i).padStart(4, '0')}.example.com`, { email: true }),
    );
    const big = plan(many, [], policy());
    const text = renderMarkdown(big);
    expect(text.length).toBeLessThan(60_000);
    expect(text).toMatch(
      /…and \d+ more changes not shown here to stay under the comment size limit \(\d+ creates, 0 updates\)/,
    );
    expect(text).toContain('**Plan: 3000 to create, 0 to update, 0 to delete; 0 unchanged.**');
    expect(text).toContain('Plan fingerprint: `sha256:');
  });
});
