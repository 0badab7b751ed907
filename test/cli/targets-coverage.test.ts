/**
 * Targets (issue 14) with coverage and expiring ignore_changes rules (issue
 * 13): each target's plan counts its own account, each target's rules expire
 * against the same injected day, validate warns per target, and a saved plan
 * over targets made on a rule's last day applies the day after as reviewed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client } from '../helpers/server.js';
import { useTargetServers, validTargetsDocument } from '../helpers/targets.js';

const day = (iso: string) => () => new Date(iso);
const LAST_DAY = day('2026-06-30T23:00:00Z');
const DAY_AFTER = day('2026-07-01T01:00:00Z');

const fixture = useTargetServers(
  { staging: { quirks: undefined }, production: { quirks: undefined } },
  {
    setup: async () => {
      const { staging, production } = fixture;
      fixture.ws.write(
        'websites.yaml',
        `version: 1
targets:
  - name: staging
    url: ${staging.url}
    key_env: SITESYNC_STAGING_KEY
  - name: production
    url: ${production.url}
    key_env: SITESYNC_PRODUCTION_KEY
    files: [production.yaml]
websites:
  - domain: shared.example
`,
      );
      fixture.ws.write(
        'production.yaml',
        `version: 1
websites:
  - domain: crm.example
    email: true
    ignore_changes:
      - field: email
        reason: CRM migration
        until: 2026-06-30
`,
      );
      const prod = client(production);
      for (const domain of ['shared.example', 'crm.example', 'legacy.example']) {
        expect((await prod('POST', '/api/v1/websites', { form: { domain, email: '0' } })).status).toBe(201);
      }
      expect((await client(staging)('POST', '/api/v1/websites', { form: { domain: 'shared.example' } })).status).toBe(
        201,
      );
    },
  },
);

interface Element {
  name: string;
  coverage?: { live: number; managed: number; kept: number; percent: number | null };
  notes: { kind: string; domains: string[] }[];
  changes: { domain: string }[];
}

describe('coverage and expiring ignores over targets', () => {
  it("each target's document has its own coverage; a rule expires for its target only", async () => {
    const run = await fixture.ws.run(['plan', '--format', 'json', '--detailed-exitcode'], { now: DAY_AFTER });
    const document = JSON.parse(run.out) as { targets: Element[] };
    expect(validTargetsDocument(document), JSON.stringify(validTargetsDocument.errors)).toBe(true);
    const [staging, production] = document.targets;
    expect(staging?.coverage).toMatchObject({ live: 1, managed: 1, kept: 0, percent: 100 });
    expect(production?.coverage).toMatchObject({ live: 3, managed: 2, kept: 1, percent: 66.6 });
    expect(staging?.notes.map((note) => note.kind)).not.toContain('ignore_expired');
    expect(production?.notes).toContainEqual(
      expect.objectContaining({ kind: 'ignore_expired', domains: ['crm.example'] }),
    );
    expect(production?.changes.map((change) => change.domain)).toEqual(['crm.example']);
    expect(run.code).toBe(2);

    // On the rule's last day the field is still ignored: nothing to do anywhere.
    const lastDay = await fixture.ws.run(['plan', '--detailed-exitcode'], { now: LAST_DAY });
    expect(lastDay.code).toBe(0);
    expect(lastDay.out).toContain('Coverage: 2 of 3 live websites managed (66.6%)');
    expect(lastDay.out).toContain('Coverage: 1 of 1 live website managed (100%)');
  });

  it('validate warns about the expired rule under the target that has it', async () => {
    const run = await fixture.ws.run(['validate'], { now: DAY_AFTER });
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^\[production\] production\.yaml:\d+:\d+: .*expired on 2026-06-30 \(UTC\)/m);
    expect(run.out).not.toMatch(/^\[staging\] .*expired/m);
  });

  it("a saved plan over targets made on the rule's last day applies the day after as reviewed", async () => {
    expect((await fixture.ws.run(['plan', '--out', 'plan.json'], { now: LAST_DAY })).code).toBe(0);
    const set = JSON.parse(readFileSync(join(fixture.ws.dir, 'plan.json'), 'utf8'));
    expect(
      set.targets.map((part: { name: string; policy: { today: string } }) => [part.name, part.policy.today]),
    ).toEqual([
      ['staging', '2026-06-30'],
      ['production', '2026-06-30'],
    ]);
    const applied = await fixture.ws.run(['apply', 'plan.json'], { now: DAY_AFTER });
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).not.toContain('expired');
    const crm = (await client(fixture.production)('GET', '/api/v1/websites?search=crm.example')).body.data[0];
    expect(crm).toMatchObject({ email: 0 });
  });
});

describe('--only and --sync-write-only name websites of any chosen target', () => {
  it('a domain configured in one target only is no typo in the others', async () => {
    for (const flag of ['--only', '--sync-write-only']) {
      const run = await fixture.ws.run(['plan', flag, 'crm.example', '--format', 'json'], { now: LAST_DAY });
      const document = JSON.parse(run.out) as { targets: { name: string; error?: string }[] };
      expect(
        document.targets.map((target) => [target.name, target.error]),
        flag,
      ).toEqual([
        ['staging', undefined],
        ['production', undefined],
      ]);
      expect(run.code, run.err).toBe(0);
    }
  });

  it('a domain no chosen target configures is refused once, before any request', async () => {
    const sync = await fixture.ws.run(['plan', '--sync-write-only', 'nosuch.example']);
    expect(sync.code).toBe(1);
    expect(sync.err).toBe(
      'error: --sync-write-only nosuch.example matches no website in the configuration of any chosen target (staging, production)\n',
    );
    const only = await fixture.ws.run(['plan', '--only', 'nosuch.example']);
    expect(only.code).toBe(1);
    expect(only.err).toContain('--only nosuch.example matches no website in the configuration or the account');
  });
});

describe('--allow-delete over targets names a planned delete of any chosen target', () => {
  const legacyExists = async () =>
    (await client(fixture.production)('GET', '/api/v1/websites?search=legacy.example')).body.data.length === 1;

  it("one naming no delete in any target is refused once, before any write; one naming production's is no typo in staging", async () => {
    const production = readFileSync(join(fixture.ws.dir, 'production.yaml'), 'utf8');
    fixture.ws.write('production.yaml', production.replace('version: 1\n', 'version: 1\nprune: true\n'));
    const typo = await fixture.ws.run(['apply', '--auto-approve', '--allow-delete', 'nosuch.example'], {
      now: LAST_DAY,
    });
    expect(typo.code).toBe(1);
    expect(
      typo.err.endsWith(
        'error: --allow-delete nosuch.example matches no planned delete of any chosen target (staging, production)\n',
      ),
    ).toBe(true);
    expect(await legacyExists()).toBe(true);
    // Staging plans no delete: it waits for production's plan instead of refusing, even one target at a time.
    const run = await fixture.ws.run(
      ['apply', '--auto-approve', '--allow-delete', 'legacy.example', '--target-parallelism', '1'],
      { now: LAST_DAY },
    );
    expect(run.code, run.err).toBe(0);
    expect(await legacyExists()).toBe(false);
  });
});

describe('a targeted plan over targets', () => {
  it('--only one exact domain costs one request in each target, whichever configures it', async () => {
    const run = await fixture.ws.run(['plan', '--only', 'crm.example', '--log-level', 'debug'], { now: LAST_DAY });
    expect(run.code, run.err).toBe(0);
    const listed = run.err.split('\n').filter((line) => line.includes('debug: listed'));
    expect(listed.sort()).toEqual([
      '[production] debug: listed 1 websites named by --only (1 searched) in 1 requests (0 retries, 0 throttled)',
      '[staging] debug: listed 0 websites named by --only (1 searched) in 1 requests (0 retries, 0 throttled)',
    ]);
    // The target where --only matches nothing says so, not "0 websites match the configuration".
    expect(run.out).toContain('=== target staging (http://127.0.0.1:');
    expect(run.out).toContain(
      "No changes. --only/--skip leave none of this configuration's websites (1 website left out).",
    );
    expect(run.out).not.toContain('0 websites match');
  });
});

describe('an --only glob is a typo only if it matches nothing in any chosen target, configured or live', () => {
  const ONLY_TYPO =
    'error: --only nosuch* matches no website in the configuration or the account of any chosen target (staging, production)\n';

  it('a glob matching only an unlisted live site of production is no typo in staging (plan, apply)', async () => {
    const plan = await fixture.ws.run(['plan', '--only', 'legacy*', '--format', 'json'], { now: LAST_DAY });
    const document = JSON.parse(plan.out) as { targets: { name: string; error?: unknown }[] };
    expect(validTargetsDocument(document), JSON.stringify(validTargetsDocument.errors)).toBe(true);
    expect(document.targets.map((target) => [target.name, target.error])).toEqual([
      ['staging', undefined],
      ['production', undefined],
    ]);
    expect(plan.code, plan.err).toBe(0);
    // One target at a time: production lists after staging has waited for it, so apply runs every target at once.
    const apply = await fixture.ws.run(['apply', '--auto-approve', '--only', 'legacy*', '--target-parallelism', '1'], {
      now: LAST_DAY,
    });
    expect(apply.code, apply.err).toBe(0);
    expect(apply.out).toContain('Targets: 2; all done.');
  });

  it('a glob matching nothing in any target is refused once for the run; apply writes nothing', async () => {
    const plan = await fixture.ws.run(['plan', '--only', 'nosuch*', '--out', 'plan.json'], { now: LAST_DAY });
    expect(plan.code).toBe(1);
    expect(plan.err.endsWith(ONLY_TYPO)).toBe(true);
    expect(plan.out).toBe('');
    expect(existsSync(join(fixture.ws.dir, 'plan.json'))).toBe(false);
    const json = await fixture.ws.run(['plan', '--only', 'nosuch*', '--format', 'json'], { now: LAST_DAY });
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'usage' } });
    expect(validTargetsDocument(JSON.parse(json.out)), JSON.stringify(validTargetsDocument.errors)).toBe(true);
    // The day after the rule's end, production would update crm.example: the typo beside it stops that write.
    const apply = await fixture.ws.run(['apply', '--auto-approve', '--only', 'crm.example', '--only', 'nosuch*'], {
      now: DAY_AFTER,
    });
    expect(apply.code).toBe(1);
    expect(apply.err.endsWith(ONLY_TYPO)).toBe(true);
    const crm = (await client(fixture.production)('GET', '/api/v1/websites?search=crm.example')).body.data[0];
    expect(crm).toMatchObject({ email: 0 });
  });
});
