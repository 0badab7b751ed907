// The apply on merge's lookup (ci/github/reviewed-plan.mjs) against the GitHub
// stand-in: the plan file carried by the merged pull request's own comment,
// only when planned at its head commit, and the description's acknowledgement
// lines, one argument per line; a line meant as an acknowledgement that does
// not parse fails the job, named, instead of vanishing.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs module of the CI scripts, without types
import { embed, MARKER } from '../../ci/lib/plan-file.mjs';
import { tempDir } from '../helpers/temp.js';
import { BOT, type GithubStandIn, startGithubStandIn } from './runner/github-api.js';

const run = promisify(execFile);
const SCRIPT = resolve(import.meta.dirname, '../../ci/github/reviewed-plan.mjs');
const HEAD = 'a'.repeat(40);
const MERGE = 'b'.repeat(40);

let api: GithubStandIn;
beforeAll(async () => {
  api = await startGithubStandIn('acme/websites');
});
afterAll(() => api.close());

async function lookup(body: string, comment: string | undefined, forged?: string) {
  api.pulls.clear();
  api.comments.splice(0);
  api.pulls.set(7, { number: 7, body, headSha: HEAD, mergeSha: MERGE });
  if (forged !== undefined) api.comments.push({ id: 0, number: 7, body: forged, login: 'mallory' });
  if (comment !== undefined) api.comments.push({ id: 1, number: 7, body: comment, login: BOT });
  const dir = tempDir('gh-reviewed');
  const env = {
    PATH: process.env.PATH ?? '',
    GITHUB_API_URL: api.url,
    GITHUB_REPOSITORY: 'acme/websites',
    GITHUB_TOKEN: api.token,
  };
  const result = await run(process.execPath, [SCRIPT, MERGE, 'plan.json', 'acks'], { cwd: dir, env }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);
  return { ...result, plan: read('plan.json'), flags: read('acks') };
}

const comment = (head: string, plan = '{"kind":"sitesync-plan"}') => `${MARKER}\nthe plan\n${embed(plan, head)}\n`;

describe('ci/github/reviewed-plan.mjs', () => {
  test('takes the plan its comment carries for the head commit, and the accepted lines, one argument per line', async () => {
    const result = await lookup(
      'Retire old.\r\nsitesync-acknowledge: --allow-delete old.example\nsitesync-acknowledge: --max-deletes 4\n',
      comment(HEAD),
    );
    expect(result).toEqual({
      code: 0,
      stdout: `reviewed plan: #7 at ${HEAD}\nacknowledged in #7: --allow-delete old.example --max-deletes 4\n`,
      plan: '{"kind":"sitesync-plan"}',
      flags: '--allow-delete\nold.example\n--max-deletes\n4\n',
    });
  });

  test('takes --allow-policy lines (NAME:DOMAIN, or NAME for a rule over the plan) as one argument each', async () => {
    const result = await lookup(
      'sitesync-acknowledge: --allow-policy exclude-bots:shop.example\nsitesync-acknowledge: --allow-policy few-deletes\n',
      comment(HEAD),
    );
    expect(result.code).toBe(0);
    expect(result.flags).toBe('--allow-policy\nexclude-bots:shop.example\n--allow-policy\nfew-deletes\n');
    const glob = await lookup('sitesync-acknowledge: --allow-policy exclude-bots:*.example\n', comment(HEAD));
    expect(glob.code).toBe(1);
    expect(glob.plan).toBeUndefined();
  });

  test("a marked comment written by anyone but the action's token is never taken", async () => {
    const result = await lookup('', comment(HEAD), comment(HEAD, '{"kind":"sitesync-plan","forged":true}'));
    expect(result.code).toBe(0);
    expect(result.plan).toBe('{"kind":"sitesync-plan"}');
    const alone = await lookup('', undefined, comment(HEAD));
    expect(alone.code).toBe(1);
    expect(alone.plan).toBeUndefined();
  });

  test('a plan of another commit, or none, is refused: the re-plan path', async () => {
    const older = await lookup('', comment('c'.repeat(40)));
    expect(older.code).toBe(1);
    expect(older.stdout).toContain(`the plan comment is of ${'c'.repeat(40)}, not of the merged head ${HEAD}`);
    expect(older.plan).toBeUndefined();
    const none = await lookup('', undefined);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('#7 has no sitesync plan comment with a plan file');
  });

  test('a line that does not parse is reported and fails the step before any plan is written', async () => {
    const result = await lookup(
      'sitesync-acknowledge: --allow-delete old.example\nsitesync-acknowledge: --force now\nsitesync-acknowledge: --allow-delete a.example b.example\n',
      comment(HEAD),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        '::error::#7: not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N, --max-change-percent N or --allow-policy NAME[:DOMAIN], one per line): sitesync-acknowledge: --force now',
        '::error::#7: not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N, --max-change-percent N or --allow-policy NAME[:DOMAIN], one per line): sitesync-acknowledge: --allow-delete a.example b.example',
        '',
      ].join('\n'),
    );
    expect(result.plan).toBeUndefined();
  });
});
