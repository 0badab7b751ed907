/**
 * Attribution over targets (issue 36): each target's changes name their
 * commits, and a file the targets share is blamed once per run, not once per
 * target (counted in git's own trace of the commands it ran).
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAs, gitRepo } from '../helpers/git-repo.js';
import { targetsConfig, useTargetServers } from '../helpers/targets.js';
import { tempDir } from '../helpers/temp.js';

const fixture = useTargetServers({ staging: { quirks: undefined }, production: { quirks: undefined } });

/** Each target with a file of its own (`staging.yaml`…); `websites.yaml`'s site is in both. */
const rootConfig = () => targetsConfig(fixture, ['staging', 'production'], ['shared.example'], { ownFiles: true });

const traced = process.env.GIT_TRACE;
afterEach(() => {
  if (traced === undefined) delete process.env.GIT_TRACE;
  else process.env.GIT_TRACE = traced;
});

describe('attribution over targets', () => {
  it('names each target’s commits, blaming the shared file once', async () => {
    const { ws } = fixture;
    const repo = gitRepo(ws.dir);
    const ana = commitAs(repo, 'Ana Lima', '2026-11-01T10:00:00+00:00', 'Targets', {
      'websites.yaml': rootConfig(),
      'staging.yaml': 'version: 1\nwebsites: []\n',
      'production.yaml': 'version: 1\nwebsites: []\n',
    });
    const bob = commitAs(repo, 'Bob Stone', '2026-11-02T10:00:00+00:00', 'Production shop', {
      'production.yaml': 'version: 1\nwebsites:\n  - domain: shop.example\n',
    });
    // git appends each command it runs to this file (GIT_TRACE); the CLI runs in this process.
    const trace = join(tempDir('git-trace'), 'trace.txt');
    process.env.GIT_TRACE = trace;
    const run = await ws.run(['plan', '--format', 'json', '--no-baseline']);
    delete process.env.GIT_TRACE;
    expect(run.code, run.err).toBe(0);
    const targets = JSON.parse(run.out).targets as { name: string; changes: { domain: string; origin?: unknown }[] }[];
    const origins = Object.fromEntries(
      targets.flatMap((target) =>
        target.changes.map((change) => [
          `${target.name} ${change.domain}`,
          (change.origin as { commit: string }).commit,
        ]),
      ),
    );
    expect(origins).toEqual({
      'staging shared.example': ana,
      'production shared.example': ana,
      'production shop.example': bob,
    });
    const blames = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => line.includes('built-in: git blame '))
      .map((line) => basename(line.split(' -- ')[1] ?? '').replace(/'/g, ''));
    expect(blames.sort()).toEqual(['production.yaml', 'staging.yaml', 'websites.yaml']);
  }, 60_000);
});
