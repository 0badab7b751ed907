/**
 * Targets (issue 14) with the git baseline and format-2 saved plans (issue
 * 13, issue 16): each target's changes are classified against its own files
 * at one baseline commit, drift folds into the combined exit code (4 between
 * 3 and 2), the Markdown table's Drift column counts drift and conflicts,
 * `--mark-applied` moves the tag only when every target applied, and an
 * edited part of a saved plan over targets is refused by target and site.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planSignatureOf } from '../../src/api/connection.js';
import { Secret } from '../../src/model/secret.js';
import { signSavedPlan } from '../../src/plan/saved-plan.js';
import { type SavedPlanSet, savedPlanOf } from '../../src/plan/saved-plan-set.js';
import { domainsInDb } from '../apply/support.js';
import { type GitRepo, gitRepo } from '../helpers/git-repo.js';
import { client } from '../helpers/server.js';
import { useTargetServers, validApplyTargets, validTargetsDocument } from '../helpers/targets.js';

const TAG = 'sitesync-applied';

const fixture = useTargetServers(
  { staging: { quirks: undefined }, production: { quirks: undefined } },
  {
    setup: () => {
      fixture.ws.write('websites.yaml', rootConfig());
      fixture.ws.write('staging.yaml', 'version: 1\nwebsites:\n  - domain: staging-only.example\n');
      fixture.ws.write('production.yaml', 'version: 1\nwebsites:\n  - domain: production-only.example\n');
    },
  },
);

function rootConfig(extraTargets = ''): string {
  return `version: 1
targets:
  - name: staging
    url: ${fixture.staging.url}
    key_env: SITESYNC_STAGING_KEY
    files: [staging.yaml]
  - name: production
    url: ${fixture.production.url}
    key_env: SITESYNC_PRODUCTION_KEY
    files: [production.yaml]
${extraTargets}websites:
  - domain: shared.example
    email: false
`;
}

interface TargetDocument {
  name: string;
  hasDrift?: boolean;
  baseline?: { ref: string; source: string };
  summary?: { pending?: number; drift?: number; conflict?: number };
  changes?: { domain: string; class?: string }[];
}

const classes = (target: TargetDocument | undefined) =>
  target?.changes?.map((change) => [change.domain, change.class]).sort();

/** Both targets applied and tagged; then a pending change on staging (in git) and drift on production (live). */
async function pendingAndDrift(): Promise<GitRepo> {
  const { ws, production } = fixture;
  const repo = gitRepo(ws.dir);
  repo.commit('v1');
  const applied = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
  expect(applied.code, applied.err).toBe(0);
  expect(repo.tagCommit(TAG)).toBe(repo.head());
  const api = client(production);
  const shared = (await api('GET', '/api/v1/websites?search=shared.example')).body.data[0];
  expect((await api('PUT', `/api/v1/websites/${shared.id}`, { form: { email: '1' } })).status).toBe(200);
  repo.commit('v2', {
    'staging.yaml': 'version: 1\nwebsites:\n  - domain: staging-only.example\n  - domain: staging-new.example\n',
  });
  return repo;
}

describe('plan over targets with a baseline', () => {
  it('classifies each target against its own files at the tag; drift folds into the exit code (4 over 2)', async () => {
    const { ws } = fixture;
    await pendingAndDrift();
    const run = await ws.run(['plan', '--detailed-exitcode', '--format', 'json']);
    expect(run.code).toBe(4);
    const document = JSON.parse(run.out) as { targets: TargetDocument[] };
    expect(validTargetsDocument(document), JSON.stringify(validTargetsDocument.errors)).toBe(true);
    const [staging, production] = document.targets;
    expect(staging).toMatchObject({ name: 'staging', hasDrift: false, baseline: { ref: TAG, source: 'default' } });
    expect(classes(staging)).toEqual([['staging-new.example', 'pending']]);
    expect(production).toMatchObject({ name: 'production', hasDrift: true, summary: { drift: 1 } });
    expect(classes(production)).toEqual([['shared.example', 'drift']]);

    const human = await ws.run(['plan']);
    expect(human.out).toContain('Targets: 2; 2 planned; drift in production.\n');
    // Only the pending target: 2. Without a baseline: no classes, 2.
    expect((await ws.run(['plan', '--detailed-exitcode', '--target', 'staging'])).code).toBe(2);
    const plain = await ws.run(['plan', '--detailed-exitcode', '--no-baseline', '--format', 'markdown']);
    expect(plain.code).toBe(2);
    expect(plain.out).toContain('| production | 0 | 1 | 0 | – | changes |');

    const markdown = await ws.run(['plan', '--format', 'markdown']);
    expect(markdown.out).toContain('| staging | 1 | 0 | 0 | 0 | changes |');
    expect(markdown.out).toContain('| production | 0 | 1 | 0 | 1 | drift |');
    expect(markdown.out).toContain('will be updated [drift]');
  });

  it('unlisted_is_drift in one target entry: an unlisted live site there is drift (exit 4), not in the other', async () => {
    const { ws, staging, production } = fixture;
    ws.write(
      'websites.yaml',
      rootConfig().replace(
        '    files: [production.yaml]\n',
        '    files: [production.yaml]\n    unlisted_is_drift: true\n',
      ),
    );
    gitRepo(ws.dir).commit('v1');
    for (const server of [staging, production]) {
      for (const domain of [
        'shared.example',
        'staging-only.example',
        'production-only.example',
        'made-by-hand.example',
      ]) {
        expect((await client(server)('POST', '/api/v1/websites', { form: { domain, email: '0' } })).status).toBe(201);
      }
    }
    const run = await ws.run(['plan', '--baseline', 'HEAD', '--detailed-exitcode', '--format', 'json']);
    const document = JSON.parse(run.out) as {
      targets: (TargetDocument & { notes: { kind: string; domains: string[] }[] })[];
    };
    expect(validTargetsDocument(document), JSON.stringify(validTargetsDocument.errors)).toBe(true);
    const [stagingPlan, productionPlan] = document.targets;
    expect(stagingPlan?.hasDrift).toBe(false);
    expect(productionPlan?.hasDrift).toBe(true);
    expect(productionPlan?.notes).toContainEqual(
      expect.objectContaining({ kind: 'unlisted_drift', domains: ['made-by-hand.example', 'staging-only.example'] }),
    );
    expect(stagingPlan?.notes.map((note) => note.kind)).not.toContain('unlisted_drift');
    expect(run.code, run.err).toBe(4);
    const human = await ws.run(['plan', '--baseline', 'HEAD', '--detailed-exitcode']);
    expect(human.out).toContain('drift in production.');
  });

  it('a target declared since the baseline is new: its changes are pending, its file need not exist at REF', async () => {
    const { ws } = fixture;
    const repo = await pendingAndDrift();
    const qa = `  - name: qa\n    url: ${fixture.staging.url}\n    key_env: SITESYNC_STAGING_KEY\n    files: [qa.yaml]\n`;
    repo.commit('qa', {
      'websites.yaml': rootConfig(qa),
      'qa.yaml': 'version: 1\nwebsites:\n  - domain: qa-only.example\n',
    });
    const run = await ws.run([
      'plan',
      '--detailed-exitcode',
      '--format',
      'json',
      '--target',
      'qa',
      '--target',
      'staging',
    ]);
    const document = JSON.parse(run.out) as { targets: TargetDocument[] };
    const [staging, qaTarget] = document.targets;
    expect(qaTarget?.name).toBe('qa');
    // Its own files only (the shared one and qa.yaml), all pending although the shared file is at REF.
    expect(classes(qaTarget)).toEqual([['qa-only.example', 'pending']]);
    expect(classes(staging)).toEqual([['staging-new.example', 'pending']]);
    expect(run.code).toBe(2);
  });

  it('a revision that does not exist fails the run before any target, as one JSON error document', async () => {
    const { ws } = fixture;
    gitRepo(ws.dir).commit('v1');
    const run = await ws.run(['plan', '--baseline', 'no-such-ref', '--format', 'json']);
    expect(run.code).toBe(1);
    const document = JSON.parse(run.out);
    expect(document).toEqual({
      formatVersion: '2.1',
      error: { code: 'config', message: expect.stringMatching(/^--baseline no-such-ref: no such revision/) },
    });
    expect(validTargetsDocument(document), JSON.stringify(validTargetsDocument.errors)).toBe(true);
    expect(run.err).not.toContain('[staging]');
  });
});

describe('apply over targets with --mark-applied', () => {
  it('moves the tag only when every target applied; refused with some targets chosen', async () => {
    const { ws, production } = fixture;
    const repo = gitRepo(ws.dir);
    const first = repo.commit('v1');
    const some = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG, '--target', 'staging']);
    expect(some.code).toBe(1);
    expect(some.err).toContain(
      'error: --mark-applied needs every declared target (staging, production), but the --target choice leaves some out',
    );
    expect(await domainsInDb(fixture.staging)).toEqual([]);
    // The same refusal under --format json: the apply error document, before any target.
    const someJson = await ws.run([
      'apply',
      '--auto-approve',
      '--mark-applied',
      TAG,
      '--target',
      'staging',
      '--format',
      'json',
    ]);
    const refused = JSON.parse(someJson.out);
    expect(refused).toMatchObject({ formatVersion: '3.0', ok: false, plan: null, error: { code: 'usage' } });
    expect(validApplyTargets(refused), JSON.stringify(validApplyTargets.errors)).toBe(true);

    // production refuses its writes (its key revoked after planning is not needed: a wrong key fails it).
    ws.env.SITESYNC_PRODUCTION_KEY = 'wrong-key-0123456789abcdef';
    const partial = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG, '--format', 'json']);
    expect(partial.code).toBe(1);
    const document = JSON.parse(partial.out);
    expect(validApplyTargets(document), JSON.stringify(validApplyTargets.errors)).toBe(true);
    expect(document.targets.map((target: { name: string; ok: boolean }) => [target.name, target.ok])).toEqual([
      ['staging', true],
      ['production', false],
    ]);
    expect(document.targets[1]).toMatchObject({ plan: null, error: { code: 'auth' }, exitCode: 1 });
    expect((await domainsInDb(fixture.staging)).sort()).toEqual(['shared.example', 'staging-only.example']);
    expect(repo.tagCommit(TAG)).toBeUndefined();

    ws.env.SITESYNC_PRODUCTION_KEY = production.key;
    const full = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(full.code, full.err).toBe(0);
    expect(full.err).toContain(`tag ${TAG} now marks ${first.slice(0, 12)}`);
    expect(repo.tagCommit(TAG)).toBe(first);
  });

  it("refuses when a target's own file differs from HEAD", async () => {
    const { ws } = fixture;
    gitRepo(ws.dir).commit('v1');
    ws.write('production.yaml', 'version: 1\nwebsites:\n  - domain: edited.example\n');
    const run = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /--mark-applied sitesync-applied: the configuration differs from HEAD \(.*production\.yaml/,
    );
    expect(await domainsInDb(fixture.production)).toEqual([]);
  });
});

/** production's part of plan.json edited (its creates send email: true) and signed again with production's key. */
function editProductionPart(path: string): SavedPlanSet {
  const set = JSON.parse(readFileSync(path, 'utf8')) as SavedPlanSet;
  const index = set.targets.findIndex((part) => part.name === 'production');
  const saved = savedPlanOf(set.targets[index] as SavedPlanSet['targets'][number]);
  for (const change of saved.plan.changes) if (change.action === 'create') change.after.email = true;
  const key = new Secret(fixture.production.key);
  set.targets[index] = { name: 'production', ...signSavedPlan(saved, (text) => planSignatureOf(key, text)) };
  writeFileSync(path, `${JSON.stringify(set, null, 2)}\n`);
  return set;
}

describe('a saved plan over targets is re-derived per target', () => {
  it('an edited part, signed again with its key, is refused by target and site; the other part is applied', async () => {
    const { ws, production } = fixture;
    expect((await ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const path = join(ws.dir, 'plan.json');
    const set = editProductionPart(path);
    expect(set.targets.map((part) => [part.name, part.formatVersion, Array.isArray(part.live)])).toEqual([
      ['staging', 2, true],
      ['production', 2, true],
    ]);

    const run = await ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      '[production] error: plan.json (target production) does not match the plan that its configuration and recorded live state give (the file was edited): nothing was applied',
    );
    expect(run.err).toContain(
      '[production]   production-only.example: email: the file says true, the configuration gives false',
    );
    expect(await domainsInDb(production)).toEqual([]);
    expect((await domainsInDb(fixture.staging)).sort()).toEqual(['shared.example', 'staging-only.example']);

    // --format json: the refused target's element holds its refusal.
    expect((await ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    editProductionPart(path);
    const json = await ws.run(['apply', 'plan.json', '--format', 'json']);
    const document = JSON.parse(json.out);
    expect(validApplyTargets(document), JSON.stringify(validApplyTargets.errors)).toBe(true);
    expect(document.ok).toBe(false);
    expect(
      document.targets.map((target: { name: string; refusal: { code: string } | null }) => [
        target.name,
        target.refusal?.code ?? null,
      ]),
    ).toEqual([
      ['staging', null],
      ['production', 'stale_plan'],
    ]);
  });

  it('a part classified against a baseline is re-derived against the same commit, after the tag moved', async () => {
    const { ws } = fixture;
    const repo = await pendingAndDrift();
    expect((await ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    // The tag moves on (another apply elsewhere); the saved plan still names the commit it was classified against.
    repo.git('tag', '-f', TAG, 'HEAD');
    const run = await ws.run(['apply', 'plan.json']);
    expect(run.code, run.err).toBe(0);
    expect((await domainsInDb(fixture.staging)).sort()).toEqual([
      'shared.example',
      'staging-new.example',
      'staging-only.example',
    ]);
  });
});
