// `plan/apply --baseline REF` in a real git repository against the reference
// server: each class (pending, drift, conflict) and its exit code, the default
// baseline (the tag --mark-applied moves), the one-line errors, --mark-applied,
// write-only values (exclude_params, password_version), --unlisted-is-drift, the
// classes of deletes, and an expired ignore rule (pending) beside the coverage line.
import { describe, expect, it } from 'vitest';
import { type GitRepo, gitRepo } from '../helpers/git-repo.js';
import { client, insertWebsite } from '../helpers/server.js';
import { type CliFixture, config, useCliFixture } from './apply-support.js';

/** Each change of a `plan --format json` document as [domain, class]. */
const classesOf = (json: { changes: { domain: string; class: string }[] }) =>
  json.changes.map((change) => [change.domain, change.class]);

const TAG = 'sitesync-applied';

const V1 = config({
  'a.example': '    email: false\n',
  'b.example': '    email: false\n',
  'c.example': '    exclude_ips: [10.0.0.1]\n',
});

/** The one error line of a failed run. */
/** Commits the workspace as v1, applies it and tags it TAG; returns the repository. */
async function appliedAndTagged(cli: CliFixture, files?: Record<string, string>): Promise<GitRepo> {
  const repo = gitRepo(cli.ws.dir);
  repo.commit('v1', files);
  const applied = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
  expect(applied.code, applied.err).toBe(0);
  return repo;
}

function errorLine(err: string): string {
  const lines = err.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('--baseline: errors are one line, exit 1', () => {
  const cli = useCliFixture({ config: V1 });

  it('not in a git work tree', async () => {
    const run = await cli.ws.run(['plan', '--baseline', 'HEAD']);
    expect(run.code).toBe(1);
    expect(errorLine(run.err)).toMatch(/--baseline HEAD: .* is not in a git work tree$/);
  });

  it('a revision that does not exist, also from SITESYNC_BASELINE', async () => {
    gitRepo(cli.ws.dir).commit('config');
    const run = await cli.ws.run(['plan', '--baseline', 'no-such-ref']);
    expect(run.code).toBe(1);
    expect(errorLine(run.err)).toMatch(/--baseline no-such-ref: no such revision in the git repository of /);
    cli.ws.env.SITESYNC_BASELINE = 'v9';
    const fromEnv = await cli.ws.run(['plan']);
    expect(fromEnv.code).toBe(1);
    expect(errorLine(fromEnv.err)).toMatch(/SITESYNC_BASELINE v9: no such revision/);
    // --no-baseline wins over the variable.
    expect((await cli.ws.run(['plan', '--no-baseline'])).code).toBe(0);
  });

  it('one of the files missing at REF', async () => {
    const repo = gitRepo(cli.ws.dir);
    repo.commit('v1');
    cli.ws.write('more.yaml', 'version: 1\nwebsites:\n  - domain: more.example\n');
    const run = await cli.ws.run(['plan', '-f', 'websites.yaml', '-f', 'more.yaml', '--baseline', 'HEAD']);
    expect(run.code, run.err).toBe(1);
    expect(errorLine(run.err)).toBe('error: --baseline HEAD: more.yaml does not exist at HEAD');
  });
});

describe('the first pull request: no configuration at the baseline', () => {
  const cli = useCliFixture({ config: V1 });

  it('every change is pending, the plan says why (exit 2, not an error)', async () => {
    const repo = gitRepo(cli.ws.dir);
    cli.ws.write('README.md', 'config repo\n');
    repo.git('add', 'README.md');
    repo.git('commit', '-q', '-m', 'nothing yet');
    const run = await cli.ws.run(['plan', '--baseline', 'HEAD', '--detailed-exitcode']);
    expect(run.code, run.err).toBe(2);
    expect(run.out).toContain('the configuration did not exist there (a first configuration): every change is pending');
    const json = JSON.parse((await cli.ws.run(['plan', '--baseline', 'HEAD', '--format', 'json'])).out);
    expect(json.baseline).toMatchObject({ ref: 'HEAD', noConfiguration: true });
    expect(classesOf(json)).toEqual([
      ['a.example', 'pending'],
      ['b.example', 'pending'],
      ['c.example', 'pending'],
    ]);
  });
});

describe('classes against the reference server', () => {
  const cli = useCliFixture({ config: V1 });

  /** Applies V1 and tags it; then drift on b, a pending change on a, a conflict on c. */
  async function threeClasses(): Promise<GitRepo> {
    const repo = gitRepo(cli.ws.dir);
    repo.commit('v1');
    const applied = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(applied.code).toBe(0);
    expect(repo.tagCommit(TAG)).toBe(repo.head());
    const api = client(cli.server);
    const id = async (domain: string) => (await api('GET', `/api/v1/websites?search=${domain}`)).body.data[0].id;
    await api('PUT', `/api/v1/websites/${await id('b.example')}`, { form: { email: '1' } });
    await api('PUT', `/api/v1/websites/${await id('c.example')}`, { form: { exclude_ips: '10.0.0.3' } });
    repo.commit('v2', {
      'websites.yaml': config({
        'a.example': '    email: true\n',
        'b.example': '    email: false\n',
        'c.example': '    exclude_ips: [10.0.0.2]\n',
      }),
    });
    return repo;
  }

  it('pending, drift and conflict per site and field; exit 4; the default baseline is said', async () => {
    await threeClasses();
    const human = await cli.ws.run(['plan', '--detailed-exitcode']);
    expect(human.code).toBe(4);
    expect(human.out).toContain('Compared with the default baseline sitesync-applied (');
    expect(human.out).toContain('~ a.example (id 1) will be updated [pending]');
    expect(human.out).toContain('    email: false → true [pending]');
    expect(human.out).toContain('~ b.example (id 2) will be updated [drift]');
    expect(human.out).toContain('~ c.example (id 3) will be updated [conflict]');
    expect(human.out).toContain('Classes: 1 pending, 1 drift, 1 conflict.');
    // For scripts written for terraform plan's 0/1/2: drift is "changes" (2), by flag or variable.
    expect((await cli.ws.run(['plan', '--detailed-exitcode', '--exit-codes', 'terraform'])).code).toBe(2);
    cli.ws.env.SITESYNC_EXIT_CODES = 'terraform';
    expect((await cli.ws.run(['plan', '--detailed-exitcode'])).code).toBe(2);
    expect((await cli.ws.run(['plan'])).code).toBe(0);
    cli.ws.env.SITESYNC_EXIT_CODES = 'terraform2';
    const bad = await cli.ws.run(['plan']);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe('error: SITESYNC_EXIT_CODES "terraform2": not one of sitesync, terraform\n');
    delete cli.ws.env.SITESYNC_EXIT_CODES;

    const json = JSON.parse((await cli.ws.run(['plan', '--format', 'json'])).out);
    expect(json).toMatchObject({ formatVersion: '2.1', hasDrift: true, baseline: { ref: TAG, source: 'default' } });
    expect(json.summary).toMatchObject({ pending: 1, drift: 1, conflict: 1 });
    expect(classesOf(json)).toEqual([
      ['a.example', 'pending'],
      ['b.example', 'drift'],
      ['c.example', 'conflict'],
    ]);

    const markdown = (await cli.ws.run(['plan', '--format', 'markdown'])).out;
    expect(markdown).toContain('| Pending | Drift | Conflict |');
    expect(markdown).toContain('| 1 | 1 | 1 |');
    expect(markdown).toContain('will be updated [drift]');

    // Only pending: exit 2. Without a baseline: exit 2 as before, no classes.
    expect((await cli.ws.run(['plan', '--detailed-exitcode', '--only', 'a.example'])).code).toBe(2);
    const plain = await cli.ws.run(['plan', '--detailed-exitcode', '--no-baseline']);
    expect(plain.code).toBe(2);
    expect(plain.out).not.toContain('[drift]');
    expect(plain.out).not.toContain('baseline');
    // An explicit baseline is said as such; HEAD~1 is the applied commit here.
    const explicit = await cli.ws.run(['plan', '--baseline', 'HEAD~1']);
    expect(explicit.out).toContain('Compared with the baseline HEAD~1 (');
    expect(explicit.out).toContain('[conflict]');
  });

  it('a create of a site listed at REF is drift (deleted outside sitesync); a new one is pending', async () => {
    const repo = await appliedAndTagged(cli);
    const api = client(cli.server);
    const b = (await api('GET', '/api/v1/websites?search=b.example')).body.data[0];
    expect((await api('DELETE', `/api/v1/websites/${b.id}`)).status).toBe(200);
    repo.commit('add d', { 'websites.yaml': `${V1}  - domain: d.example\n` });
    const json = JSON.parse((await cli.ws.run(['plan', '--format', 'json'])).out);
    expect(classesOf(json)).toEqual([
      ['b.example', 'drift'],
      ['d.example', 'pending'],
    ]);
  });

  it('with prune, a delete of a site created outside sitesync is drift; of one unlisted since REF, pending', async () => {
    const pruned = V1.replace('version: 1\n', 'version: 1\nprune: true\n');
    const repo = await appliedAndTagged(cli, { 'websites.yaml': pruned });
    await insertWebsite(cli.server, 'stranger.example');
    repo.commit('drop b', { 'websites.yaml': pruned.replace('  - domain: b.example\n    email: false\n', '') });
    const human = await cli.ws.run(['plan', '--detailed-exitcode']);
    expect(human.code).toBe(4);
    expect(human.out).toMatch(/- DELETE b\.example \(id \d+\) \[pending\]/);
    expect(human.out).toMatch(/- DELETE stranger\.example \(id \d+\) \[drift\]/);
    const json = JSON.parse((await cli.ws.run(['plan', '--format', 'json'])).out);
    expect(classesOf(json)).toEqual([
      ['b.example', 'pending'],
      ['stranger.example', 'drift'],
    ]);
  });

  it('a field whose ignore rule expired since is pending (exit 2), noted, with the coverage line', async () => {
    const until =
      '    ignore_changes:\n      - field: email\n        reason: CRM migration\n        until: 2026-06-30\n';
    const ruled = V1.replace(
      '  - domain: a.example\n    email: false\n',
      `  - domain: a.example\n    email: true\n${until}`,
    );
    const repo = gitRepo(cli.ws.dir);
    repo.commit('v1', { 'websites.yaml': ruled });
    const june = () => new Date('2026-06-15T12:00:00Z');
    expect((await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG], { now: june })).code).toBe(0);
    // Turned off in the web UI while the rule holds: ignored drift, the rule's purpose.
    expect((await client(cli.server)('PUT', '/api/v1/websites/1', { form: { email: '0' } })).status).toBe(200);
    expect((await cli.ws.run(['plan', '--detailed-exitcode'], { now: june })).code).toBe(0);
    const july = () => new Date('2026-07-01T00:00:00Z');
    const run = await cli.ws.run(['plan', '--detailed-exitcode'], { now: july });
    expect(run.code).toBe(2);
    expect(run.out).toContain('~ a.example (id 1) will be updated [pending]\n    email: false → true [pending]\n');
    expect(run.out).toContain('Note: ignore_changes for email expired on 2026-06-30 (UTC) (reason: CRM migration)');
    expect(run.out).toContain('Coverage: 3 of 3 live websites managed (100%).');
    expect(run.out).toContain('Classes: 1 pending, 0 drift, 0 conflicts.');
  });

  it('--unlisted-is-drift (and unlisted_is_drift: true): a site created outside the configuration exits 4', async () => {
    const repo = await appliedAndTagged(cli);
    await insertWebsite(cli.server, 'stranger.example');
    expect((await cli.ws.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    const flagged = await cli.ws.run(['plan', '--detailed-exitcode', '--unlisted-is-drift']);
    expect(flagged.code).toBe(4);
    expect(flagged.out).toContain(
      'Note: 1 website in scope but not in the configuration: drift (created outside it; --unlisted-is-drift) (stranger.example)',
    );
    repo.commit('setting', { 'websites.yaml': V1.replace('version: 1\n', 'version: 1\nunlisted_is_drift: true\n') });
    expect((await cli.ws.run(['plan', '--detailed-exitcode', '--no-baseline'])).code).toBe(4);
  });
});

describe('apply --mark-applied', () => {
  const cli = useCliFixture({ config: V1 });

  it('refuses before any change when the configuration differs from HEAD', async () => {
    const repo = gitRepo(cli.ws.dir);
    repo.commit('v1');
    cli.ws.write('websites.yaml', `${V1}  - domain: uncommitted.example\n`);
    const run = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(run.code).toBe(1);
    expect(errorLine(run.err)).toMatch(
      /--mark-applied sitesync-applied: the configuration differs from HEAD \(websites\.yaml\)/,
    );
    expect((await client(cli.server)('GET', '/api/v1/websites')).body.data).toEqual([]);
    expect(repo.tagCommit(TAG)).toBeUndefined();
  });

  it('does not move the tag when apply refuses (safety), moves it after a verified apply', async () => {
    const repo = gitRepo(cli.ws.dir);
    const first = repo.commit('v1');
    expect((await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG])).code).toBe(0);
    expect(repo.tagCommit(TAG)).toBe(first);
    // Everything pruned: over limits.max_deletes, refused with exit 3; the tag stays.
    repo.commit('prune all', {
      'websites.yaml': 'version: 1\nprune: true\nmanage:\n  include: ["*.example"]\nwebsites: []\n',
    });
    const refused = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(refused.code).toBe(3);
    expect(repo.tagCommit(TAG)).toBe(first);
    // A plain change: applied, read back, tag moved; the message says so.
    const third = repo.commit('email', { 'websites.yaml': V1.replace('email: false\n', 'email: true\n') });
    const applied = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(applied.code).toBe(0);
    expect(applied.err).toContain(`tag ${TAG} now marks ${third.slice(0, 12)}, the applied commit`);
    expect(repo.tagCommit(TAG)).toBe(third);
  });

  it('is refused with --only (a partial apply), and for a configuration outside git', async () => {
    const partial = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG, '--only', 'a.example']);
    expect(partial.code).toBe(1);
    expect(errorLine(partial.err)).toContain('--mark-applied cannot be combined with --only or --skip');
    const outside = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(outside.code).toBe(1);
    expect(errorLine(outside.err)).toMatch(/--mark-applied sitesync-applied: .* is not in a git work tree$/);
    expect((await client(cli.server)('GET', '/api/v1/websites')).body.data).toEqual([]);
  });

  it('a default baseline that cannot be read says how to turn it off', async () => {
    const repo = gitRepo(cli.ws.dir);
    repo.commit('v1');
    repo.git('tag', TAG);
    cli.ws.write('extra.yaml', 'version: 1\nwebsites:\n  - domain: extra.example\n');
    const run = await cli.ws.run(['plan', '-f', 'websites.yaml', '-f', 'extra.yaml']);
    expect(run.code).toBe(1);
    expect(errorLine(run.err)).toBe(
      'error: the default baseline sitesync-applied: extra.yaml does not exist at sitesync-applied (--no-baseline turns the default baseline off)',
    );
    expect((await cli.ws.run(['plan', '-f', 'websites.yaml', '-f', 'extra.yaml', '--no-baseline'])).code).toBe(0);
  });

  it('a saved plan applied with --mark-applied moves the tag too', async () => {
    const repo = gitRepo(cli.ws.dir);
    const head = repo.commit('v1');
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const applied = await cli.ws.run(['apply', 'plan.json', '--mark-applied', TAG]);
    expect(applied.code).toBe(0);
    expect(repo.tagCommit(TAG)).toBe(head);
  });
});

describe('write-only values with a baseline (the deployed service returns no exclude_params)', () => {
  const PASSWORDS = { SITESYNC_SHOP_PASSWORD: 'shop-password-0001', SITESYNC_DOCS_PASSWORD: 'docs-password-0001' };
  const cli = useCliFixture({ server: { quirks: 'phpanalytics-v31' }, env: PASSWORDS });
  const shop = (version: string) =>
    `    privacy: password\n    password: \${SITESYNC_SHOP_PASSWORD}\n    password_version: "${version}"\n`;
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} references in YAML
  const docs = '    privacy: password\n    password: ${SITESYNC_DOCS_PASSWORD}\n    password_version: "1"\n';

  it('exclude_params changed since REF is a pending update of exactly that site', async () => {
    const repo = gitRepo(cli.ws.dir);
    repo.commit('v1', {
      'websites.yaml': config({ 'a.example': '    exclude_params: [ref]\n', 'b.example': '    exclude_params: [x]\n' }),
    });
    expect((await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG])).code).toBe(0);
    repo.commit('v2', {
      'websites.yaml': config({
        'a.example': '    exclude_params: [ref, utm_source]\n',
        'b.example': '    exclude_params: [x]\n',
      }),
    });
    expect((await cli.ws.run(['plan', '--detailed-exitcode', '--no-baseline'])).code).toBe(0); // invisible without
    const run = await cli.ws.run(['plan', '--detailed-exitcode', '--format', 'json']);
    expect(run.code).toBe(2);
    const json = JSON.parse(run.out);
    expect(json.changes).toHaveLength(1);
    expect(json.changes[0]).toMatchObject({
      domain: 'a.example',
      class: 'pending',
      fields: [{ field: 'excludeParams', after: ['ref', 'utm_source'], writeOnly: true, class: 'pending' }],
    });
    expect((await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG])).code).toBe(0);
    const stored = await cli.server.server.store.getWebsite(cli.server.accountId, 1);
    expect(stored?.excludeParams).toBe('ref\nutm_source');
  });

  it('a password_version change re-sends exactly that password', async () => {
    const repo = await appliedAndTagged(cli, {
      'websites.yaml': config({ 'shop.example': shop('2026-01'), 'docs.example': docs }),
    });
    const store = cli.server.server.store;
    const before = await Promise.all([1, 2].map((id) => store.getWebsite(cli.server.accountId, id)));
    expect(before.every((site) => site?.passwordHash)).toBe(true);

    // Rotation: a new value in the secret store, a new version in git.
    cli.ws.env.SITESYNC_SHOP_PASSWORD = 'shop-password-0002';
    repo.commit('rotate', { 'websites.yaml': config({ 'shop.example': shop('2026-02'), 'docs.example': docs }) });
    const planned = await cli.ws.run(['plan', '--detailed-exitcode']);
    expect(planned.code).toBe(2);
    expect(planned.out).toContain('password: (write-only) will be sent [pending]');
    expect(planned.out).toContain('Plan: 0 to create, 1 to update, 0 to delete; 1 unchanged.');
    const applied = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(applied.code).toBe(0);
    const after = await Promise.all([1, 2].map((id) => store.getWebsite(cli.server.accountId, id)));
    const changed = [0, 1].filter((i) => after[i]?.passwordHash !== before[i]?.passwordHash);
    expect(changed.map((i) => after[i]?.domain)).toEqual(['shop.example']);
    // The version is the only thing in git; no value of a password appears in any output.
    expect((await cli.ws.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    const everything = cli.ws.outputs.join('\n');
    for (const secret of ['shop-password-0001', 'shop-password-0002', 'docs-password-0001'])
      expect(everything).not.toContain(secret);
  });
});
