// The pull request is the trust boundary (issue 33, "Done means"): a branch
// whose configuration points a target's url at another origin, reads its key
// from another variable, puts ${…} in a url, or lists files outside the
// repository, planned by examples/ci/targets/sitesync-plan.yml as a runner
// runs it (test/e2e/runner), gets a refusal in its comment and sends nothing
// anywhere: the attacker's listening socket records no connection, and neither
// installation receives a request. Nothing of the keys or of the outside file
// reaches the comment or the job summary. docs/workflows.md, "Threat model".
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ConnectionRecorder, startConnectionRecorder } from '../helpers/connection-recorder.js';
import { allowedOrigins, startTargetServers, type TargetServers } from '../helpers/targets.js';
import { tempDir, tempDirWith } from '../helpers/temp.js';
import { type PackedCli, packedCli } from './packed-cli.js';
import { type GithubStandIn, startGithubStandIn } from './runner/github-api.js';
import { type GithubRunner, REPOSITORY, runJob } from './runner/github-runner.js';
import { EXAMPLES, gitopsRepo, pinnedSitesync } from './runner/gitops-repo.js';

const EXAMPLE = resolve(import.meta.dirname, '../../examples/targets');
const PLAN = join(EXAMPLES, 'targets', 'sitesync-plan.yml');
const HASH = '$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyz';

describe('a malicious pull request against the targets workflow', () => {
  let started: TargetServers<'staging' | 'production'>;
  let recorder: ConnectionRecorder;
  let api: GithubStandIn;
  let packed: PackedCli;
  const requests: string[] = [];
  beforeAll(async () => {
    const log = (line: string) => void requests.push(line);
    started = await startTargetServers({ staging: { log }, production: { log } });
    recorder = await startConnectionRecorder();
    api = await startGithubStandIn(REPOSITORY);
    packed = await packedCli('pull-request-trust');
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await recorder?.close();
    await started?.close();
  });

  test(`changing url, key_env, \${…} or files: is refused in the comment and sends nothing anywhere`, async () => {
    const { staging, production } = started.servers;
    const outside = tempDirWith('pull-request-outside', { 'shadow.yaml': `root:${HASH}:19000:0:99999:7:::\n` });
    const files: Record<string, string> = {
      'env/staging.yaml': readFileSync(join(EXAMPLE, 'env/staging.yaml'), 'utf8'),
      'env/production.yaml': readFileSync(join(EXAMPLE, 'env/production.yaml'), 'utf8'),
    };
    const declaring = readFileSync(join(EXAMPLE, 'websites.yaml'), 'utf8')
      .replace('url: https://stats.staging.example.com\n', `url: ${staging.url}\n`)
      .replace('url: https://stats.example.com\n', `url: ${production.url}\n`);
    const repo = gitopsRepo(api, { ...pinnedSitesync(packed.tarball), ...files, 'websites.yaml': declaring });
    const runner: GithubRunner = { origin: repo.origin, api, toolCache: tempDir('tool-cache') };
    const options = {
      secrets: { SITESYNC_STAGING_KEY: staging.key, SITESYNC_PRODUCTION_KEY: production.key },
      vars: { SITESYNC_ALLOWED_ORIGINS: allowedOrigins([staging, production]) },
    };
    const hostile: [string, string, string][] = [
      ['url', declaring.replace(`url: ${production.url}\n`, `url: ${recorder.url}\n`), 'is not a pinned origin'],
      [
        'key_env',
        declaring.replace('key_env: SITESYNC_PRODUCTION_KEY', 'key_env: PATH'),
        'a key is read only from a variable whose name starts with SITESYNC_',
      ],
      [
        'interpolation',
        declaring.replace(`url: ${production.url}\n`, `url: ${recorder.url}/\${SITESYNC_PRODUCTION_KEY}\n`),
        'is resolved only in password',
      ],
      [
        'files:',
        declaring.replace('files: [env/production.yaml]', `files: [${join(outside, 'shadow.yaml')}]`),
        "is outside the configuration's root",
      ],
    ];
    let number = 0;
    for (const [changed, text, refusal] of hostile) {
      number += 1;
      const pull = repo.openPull(number, `sites/hostile-${number}`, { 'websites.yaml': text });
      const run = await runJob(runner, PLAN, 'plan', pull, options);
      expect(run.code, `${changed}: ${run.log}`).not.toBe(0);
      const comment = api.comments.filter((entry) => entry.number === number)[0]?.body ?? '';
      expect(comment, changed).toContain('sitesync failed');
      expect(comment, changed).toContain(refusal);
      for (const secret of [staging.key, production.key, 'saltsalt', process.env.PATH ?? '-'])
        expect(`${comment}${run.summary}`, changed).not.toContain(secret);
    }
    expect(recorder.connections).toEqual([]);
    expect(requests).toEqual([]);
  }, 300_000);
});
