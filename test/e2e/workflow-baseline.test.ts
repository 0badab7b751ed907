// The baseline loop of docs/workflows.md in a real git repository against the
// reference server (temporary SQLite file): apply and tag the applied commit;
// then a change in the web UI (drift) and a merged, unapplied change (pending);
// the nightly drift check exits 4 and names only the drifted site as drift; the
// apply on merge repairs both and moves the tag; the re-check exits 0.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { config, type Workspace, workspace } from '../cli/apply-support.js';
import { gitRepo } from '../helpers/git-repo.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { runDriftCheck } from './drift-check-script.js';

const TAG = 'sitesync-applied';

describe('CI workflow with a git baseline: drift (exit 4) told apart from pending (exit 2)', () => {
  let server: TestServer;
  let ws: Workspace;
  beforeAll(async () => {
    server = await startTestServer({ db: join(tempDir('e2e-baseline-db'), 'sitesync.db') });
    ws = workspace(server);
  });
  afterAll(() => server.close());

  test('apply + tag, drift and pending, drift check, apply, re-check', async () => {
    const repo = gitRepo(ws.dir);
    const v1 = repo.commit('v1', {
      'websites.yaml': config({
        'blog.example': '    privacy: public\n    email: true\n',
        'docs.example': '    exclude_params: [utm_source]\n',
        'shop.example': '    favorite: true\n',
      }),
    });

    // Apply on merge, marking the applied commit.
    const first = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(first.code).toBe(0);
    expect(repo.tagCommit(TAG)).toBe(v1);
    expect((await ws.run(['plan', '--detailed-exitcode'])).code).toBe(0);

    // Someone turns e-mail reports off in the web UI: drift.
    const api = client(server);
    const blog = (await api('GET', '/api/v1/websites?search=blog.example')).body.data[0];
    expect((await api('PUT', `/api/v1/websites/${blog.id}`, { form: { email: '0' } })).status).toBe(200);
    // A merged pull request changes docs.example; not applied yet: pending.
    const v2 = repo.commit('docs: exclude ref too', {
      'websites.yaml': config({
        'blog.example': '    privacy: public\n    email: true\n',
        'docs.example': '    exclude_params: [ref, utm_source]\n',
        'shop.example': '    favorite: true\n',
      }),
    });

    // Nightly drift check against the tag (the default baseline): exit 4, only blog.example is drift.
    const drift = await ws.run(['plan', '--detailed-exitcode', '--format', 'markdown']);
    expect(drift.code).toBe(4);
    const driftLine = drift.out.split('\n').find((line) => line.startsWith('- Drift'));
    expect(driftLine).toMatch(/: blog\.example$/);
    const pendingLine = drift.out.split('\n').find((line) => line.startsWith('- Pending'));
    expect(pendingLine).toMatch(/: docs\.example$/);
    const json = JSON.parse((await ws.run(['plan', '--format', 'json'])).out);
    expect(json.hasDrift).toBe(true);
    expect(json.changes.filter((change: { class: string }) => change.class === 'drift')).toEqual([
      expect.objectContaining({ domain: 'blog.example' }),
    ]);

    // The same through examples/cron/drift-check.sh: exit 4, drift named as such.
    const cron = await runDriftCheck(ws);
    expect(cron.code).toBe(4);
    expect(cron.stdout).toMatch(
      /^sitesync: drift found in websites\.yaml: websites were changed outside sitesync: see .*drift-\d{8}T\d{6}Z\.md\n$/,
    );

    // The pull-request plan job compares with the base branch: only the pending change.
    const pr = await ws.run(['plan', '--detailed-exitcode', '--baseline', v1, '--only', 'docs.example']);
    expect(pr.code).toBe(2);

    // Apply (repairs the drift, sends the pending change), tag moves to the applied commit.
    const applied = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(applied.code).toBe(0);
    expect(repo.tagCommit(TAG)).toBe(v2);
    const recheck = await ws.run(['plan', '--detailed-exitcode']);
    expect(recheck.code).toBe(0);
    expect(recheck.out).toContain(`Compared with the default baseline ${TAG} (${v2.slice(0, 12)})`);
    expect(await runDriftCheck(ws)).toEqual({ code: 0, stdout: '' });

    // Merged but not applied, and nothing drifted: the cron check warns (cron mails it) and passes.
    repo.commit('shop: not a favourite', {
      'websites.yaml': config({
        'blog.example': '    privacy: public\n    email: true\n',
        'docs.example': '    exclude_params: [ref, utm_source]\n',
        'shop.example': '    favorite: false\n',
      }),
    });
    expect((await ws.run(['plan', '--detailed-exitcode'])).code).toBe(2);
    const pending = await runDriftCheck(ws);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(
      /^sitesync: warning: websites\.yaml has changes that were not applied yet \(pending, no drift\): see /,
    );
  }, 90_000); // a dozen CLI runs: 24 s alone, over 30 s beside other files on two cores
});
