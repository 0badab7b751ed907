// `sitesync history DOMAIN` in a real git repository: the website's desired
// settings through the commits that changed them (its entry, the defaults it
// inherits, a branch merged), newest first, never a commit that left them as
// they were; each with the applies that carried it (the applied tag's commit,
// the apply journal's lines written against the reference server).
import { describe, expect, test } from 'vitest';
import { commitAs, gitRepo } from '../helpers/git-repo.js';
import { useCliFixture } from './apply-support.js';

const config = (defaults: string, shop: string, other = '') =>
  `version: 1\ndefaults:\n${defaults}websites:\n  - domain: shop.example\n${shop}  - domain: blog.example\n${other}`;

describe('sitesync history', () => {
  const cli = useCliFixture();

  test('lists the commits that changed the site, newest first, with the applies that carried them', async () => {
    const { ws } = cli;
    const repo = gitRepo(ws.dir);
    const added = commitAs(repo, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Add the shop', {
      'websites.yaml': config('  exclude_bots: true\n', ''),
    });
    const applied = await ws.run([
      'apply',
      '--auto-approve',
      '--journal',
      'journal.jsonl',
      '--mark-applied',
      'sitesync-applied',
    ]);
    expect(applied.code, applied.err).toBe(0);
    commitAs(repo, 'Bob Stone', '2026-11-02T10:00:00+00:00', 'Blog only', {
      'websites.yaml': config('  exclude_bots: true\n', '', '    email: true\n'),
    });
    const published = commitAs(repo, 'Cy Park', '2026-11-03T10:00:00+00:00', 'Publish the shop', {
      'websites.yaml': config('  exclude_bots: true\n', '    privacy: public\n', '    email: true\n'),
    });
    repo.branch('bots');
    const bots = commitAs(repo, 'Dee Fox', '2026-11-04T10:00:00+00:00', 'Count bots again', {
      'websites.yaml': config('  exclude_bots: false\n', '    privacy: public\n', '    email: true\n'),
    });
    repo.checkout('main');
    repo.merge('bots', 'Merge bots');

    const run = await ws.run(['history', 'www.Shop.example', '--journal', 'journal.jsonl', '--format', 'json']);
    expect(run.code, run.err).toBe(0);
    const history = JSON.parse(run.out);
    expect(history).toMatchObject({
      formatVersion: '1.0',
      domain: 'shop.example',
      files: ['websites.yaml'],
      appliedTag: { name: 'sitesync-applied', commit: added },
      truncated: false,
    });
    const base = { email: false, exclude_params: [], exclude_ips: [], favorite: false };
    expect(history.entries.map((entry: { commit: string }) => entry.commit)).toEqual([bots, published, added]);
    expect(history.entries[0]).toMatchObject({
      author: 'Dee Fox',
      subject: 'Count bots again',
      desired: { ...base, privacy: 'public', exclude_bots: false },
      inAppliedTag: false,
      applies: [],
    });
    expect(history.entries[1].desired).toEqual({ ...base, privacy: 'public', exclude_bots: true });
    expect(history.entries[2]).toMatchObject({
      date: '2026-11-01T10:00:00+00:00',
      desired: { ...base, privacy: 'private', exclude_bots: true },
      inAppliedTag: true,
      applies: [{ action: 'create', commit: added, journal: 'journal.jsonl' }],
    });

    const text = await ws.run(['history', 'shop.example']);
    expect(text.out).toContain(`${bots.slice(0, 7)} 2026-11-04 Dee Fox: Count bots again\n`);
    expect(text.out).toContain(`    applied: in sitesync-applied (${added.slice(0, 12)})\n`);
    expect(text.out).toContain('    not applied yet\n');
  }, 60_000);

  test('outside a git work tree, history says what it needs', async () => {
    cli.ws.write('websites.yaml', config('', ''));
    const run = await cli.ws.run(['history', 'shop.example']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^error: history needs the configuration in a git work tree/);
  });
});
