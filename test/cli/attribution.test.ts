// Change attribution in real git repositories against the reference server:
// each pending change names the commit that last changed its website's entry
// (or the defaults it inherits for what changes) since the baseline, through
// merges, out-of-order dates, a renamed file and moved entries; drift names
// none; a shallow clone without the history says so once and never fails.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { bareOrigin, cloneOf, commitAs, gitRepo } from '../helpers/git-repo.js';
import { client } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { useCliFixture, workspace } from './apply-support.js';

const planSchema = new Ajv2020({ strict: false }).compile(
  (await import('../../schemas/plan.schema.json', { with: { type: 'json' } })).default,
);

const FIRST = `version: 1
defaults:
  exclude_bots: true
websites:
  - domain: a.example
  - domain: b.example
  - domain: c.example
    email: false
`;

interface Change {
  domain: string;
  class?: string;
  origin?: { commit: string; author: string; date: string; subject: string };
}

async function planJson(ws: ReturnType<typeof workspace>, args: string[] = []): Promise<Record<string, Change>> {
  const run = await ws.run(['plan', '--format', 'json', ...args]);
  expect(run.code, run.err).toBe(0);
  const document = JSON.parse(run.out);
  expect(planSchema(document), JSON.stringify(planSchema.errors)).toBe(true);
  return Object.fromEntries((document.changes as Change[]).map((change) => [change.domain, change]));
}

describe('change attribution', () => {
  const cli = useCliFixture();

  test('names the commit of each pending change: its entry, the defaults it inherits, a merged branch', async () => {
    const { ws } = cli;
    const repo = gitRepo(ws.dir);
    commitAs(repo, 'Ana Lima', '2026-11-01T10:00:00+01:00', 'Three sites', { 'websites.yaml': FIRST });
    expect((await ws.run(['apply', '--auto-approve', '--mark-applied', 'sitesync-applied'])).code).toBe(0);
    // Dates out of history's order (Dee's commit, the latest, has the earliest date): history decides.
    commitAs(repo, 'Bob Stone', '2026-10-20T09:00:00+00:00', 'Publish a', {
      'websites.yaml': FIRST.replace('  - domain: a.example\n', '  - domain: a.example\n    privacy: public\n'),
    });
    repo.branch('feature');
    // websites.yaml at HEAD with one line replaced (git show drops the final newline).
    const edited = (line: string, by: string) => repo.git('show', 'HEAD:websites.yaml').concat('\n').replace(line, by);
    const cy = commitAs(repo, 'Cy Park', '2026-11-03T12:00:00+00:00', 'Favourite c', {
      'websites.yaml': edited('    email: false\n', '    email: false\n    favorite: true\n'),
    });
    repo.checkout('main');
    const dee = commitAs(repo, 'Dee Fox', '2026-10-01T08:00:00-05:00', 'Reports for everyone', {
      'websites.yaml': edited('  exclude_bots: true\n', '  exclude_bots: true\n  email: true\n'),
    });
    repo.merge('feature', 'Merge feature');

    const changes = await planJson(ws);
    expect(changes['a.example']?.origin).toEqual({
      commit: dee,
      author: 'Dee Fox',
      date: '2026-10-01T08:00:00-05:00',
      subject: 'Reports for everyone',
    }); // a's privacy is Bob's, but the email it inherits from defaults changed later, in Dee's commit
    expect(changes['b.example']?.origin?.commit).toBe(dee);
    expect(changes['c.example']?.origin).toMatchObject({ commit: cy, author: 'Cy Park', subject: 'Favourite c' });
    expect(changes['c.example']?.class).toBe('pending');

    const human = await ws.run(['plan']);
    expect(human.out).toContain(
      `~ c.example (id 3) will be updated [pending]\n    from ${cy.slice(0, 7)} Cy Park, 2026-11-03: Favourite c\n`,
    );
    const markdown = await ws.run(['plan', '--format', 'markdown']);
    expect(markdown.out).toContain(`· from <code>${cy.slice(0, 7)}</code> Cy Park, 2026-11-03: Favourite c</summary>`);
  }, 60_000);

  test('an entry moved in its file or to another file keeps the commit that wrote it', async () => {
    const { ws, server } = cli;
    const repo = gitRepo(ws.dir);
    const ana = commitAs(repo, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Sites', {
      'websites.yaml': `${FIRST.replace('    email: false\n', '    email: false\n    exclude_ips: [192.0.2.10, 192.0.2.11]\n')}  - domain: d.example\n    privacy: public\n    exclude_params: [campaign, source]\n`,
    });
    // Moved: d first in the list; c to a file of its own, in one commit.
    const moved = `version: 1
defaults:
  exclude_bots: true
websites:
  - domain: d.example
    privacy: public
    exclude_params: [campaign, source]
  - domain: a.example
  - domain: b.example
`;
    commitAs(repo, 'Mo Ver', '2026-11-02T10:00:00+00:00', 'Reorder and split', {
      'websites.yaml': moved,
      'more.yaml':
        'version: 1\nwebsites:\n  - domain: c.example\n    email: false\n    exclude_ips: [192.0.2.10, 192.0.2.11]\n',
    });
    const plain = await planJson(ws, ['-f', 'websites.yaml', '-f', 'more.yaml', '--no-baseline']);
    expect(plain['d.example']?.origin?.commit, 'moved in its file').toBe(ana);
    expect(plain['c.example']?.origin?.commit, 'moved to another file').toBe(ana);
    void server;
  });

  test('drift names no commit: the configuration did not change', async () => {
    const { ws, server } = cli;
    const repo = gitRepo(ws.dir);
    commitAs(repo, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Sites', { 'websites.yaml': FIRST });
    expect((await ws.run(['apply', '--auto-approve', '--mark-applied', 'sitesync-applied'])).code).toBe(0);
    const listed = await client(server)('GET', '/api/v1/websites?per_page=100');
    const b = listed.body.data.find((site: { domain: string }) => site.domain === 'b.example');
    await client(server)('PATCH', `/api/v1/websites/${b.id}`, { form: { favorite: '1' } });
    const changes = await planJson(ws);
    expect(changes['b.example']).toMatchObject({ class: 'drift' });
    expect(changes['b.example']?.origin).toBeUndefined();
  });

  test('a renamed file keeps its history', async () => {
    const { ws } = cli;
    const repo = gitRepo(ws.dir);
    const ana = commitAs(repo, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Sites', { 'websites.yaml': FIRST });
    repo.git('mv', 'websites.yaml', 'sites.yaml');
    commitAs(repo, 'Re Namer', '2026-11-02T10:00:00+00:00', 'Rename', {});
    const changes = await planJson(ws, ['-f', 'sites.yaml', '--no-baseline']);
    expect(changes['a.example']?.origin?.commit).toBe(ana);
  });

  test('a shallow clone without the history says so once, attributes nothing and plans as usual', async () => {
    const source = gitRepo();
    commitAs(source, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Sites', { 'websites.yaml': FIRST });
    commitAs(source, 'Bob Stone', '2026-11-02T10:00:00+00:00', 'More', {
      'websites.yaml': `${FIRST}  - domain: e.example\n`,
    });
    const clone = cloneOf(bareOrigin(source), tempDir('shallow'));
    const ws = workspace(cli.server);
    const run = await ws.run(['plan', '-f', `${clone.dir}/websites.yaml`, '--format', 'json']);
    expect(run.code, run.err).toBe(0);
    const document = JSON.parse(run.out);
    expect(planSchema(document)).toBe(true);
    expect(document.attribution.note).toMatch(
      /^this clone is shallow and lacks the history, so no change is attributed/,
    );
    expect(document.changes.filter((change: Change) => change.origin !== undefined)).toEqual([]);
    const human = await ws.run(['plan', '-f', `${clone.dir}/websites.yaml`]);
    expect(human.out.match(/this clone is shallow/g)).toHaveLength(1);
  });

  test('a full checkout whose base branch CI fetched at depth 1 (shallow, but joined) is attributed', async () => {
    const source = gitRepo();
    commitAs(source, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Sites', { 'websites.yaml': FIRST });
    source.branch('pr');
    const bob = commitAs(source, 'Bob Stone', '2026-11-02T10:00:00+00:00', 'Add e', {
      'websites.yaml': `${FIRST}  - domain: e.example\n`,
    });
    const clone = cloneOf(bareOrigin(source), tempDir('full'), { branch: 'pr', full: true });
    // What ci/plan.sh does before it plans against the base branch.
    clone.git('fetch', '--quiet', '--no-tags', '--depth=1', 'origin', '+refs/heads/main:refs/remotes/origin/main');
    expect(clone.git('rev-parse', '--is-shallow-repository').trim()).toBe('true');
    const ws = workspace(cli.server);
    const changes = await planJson(ws, ['-f', `${clone.dir}/websites.yaml`, '--baseline', 'origin/main']);
    expect(changes['e.example']).toMatchObject({ class: 'pending', origin: { commit: bob, author: 'Bob Stone' } });
  });

  test('a shallow clone whose base branch moved on since the branch left it is attributed when the history joins them', async () => {
    const source = gitRepo();
    commitAs(source, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Sites', { 'websites.yaml': FIRST });
    source.branch('pr');
    const bob = commitAs(source, 'Bob Stone', '2026-11-02T10:00:00+00:00', 'Add e', {
      'websites.yaml': `${FIRST}  - domain: e.example\n`,
    });
    source.checkout('main');
    commitAs(source, 'Cy Park', '2026-11-03T10:00:00+00:00', 'Readme', { 'README.md': 'sites\n' });
    // Depth 1 as CI checks out, then deepened until the two meet (as a baseline's resolution does).
    const clone = cloneOf(bareOrigin(source), tempDir('moved'), { branch: 'pr' });
    clone.git('fetch', '--quiet', '--no-tags', '--depth=1', 'origin', '+refs/heads/main:refs/remotes/origin/main');
    clone.git(
      'fetch',
      '--quiet',
      '--no-tags',
      '--deepen=1',
      'origin',
      'pr',
      '+refs/heads/main:refs/remotes/origin/main',
    );
    expect(clone.git('rev-parse', '--is-shallow-repository').trim()).toBe('true');
    const ws = workspace(cli.server);
    const changes = await planJson(ws, ['-f', `${clone.dir}/websites.yaml`, '--baseline', 'origin/main']);
    expect(changes['e.example']).toMatchObject({ class: 'pending', origin: { commit: bob } });
  });

  test('--no-attribution names no commit', async () => {
    const { ws } = cli;
    const repo = gitRepo(ws.dir);
    commitAs(repo, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Sites', { 'websites.yaml': FIRST });
    const changes = await planJson(ws, ['--no-attribution']);
    expect(Object.values(changes).map((change) => change.origin)).toEqual([undefined, undefined, undefined]);
  });
});
