// `sitesync apply [-f FILE]`: plan, confirm, apply, summary, exit codes; in-process over real HTTP.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SitesyncError } from '../../src/model/errors.js';
import { domainsInDb } from '../apply/support.js';
import { insertWebsite, startTestServer } from '../helpers/server.js';
import { config, useCliFixture, workspace } from './apply-support.js';

describe('sitesync apply', () => {
  const cli = useCliFixture({ config: config({ 'a.example': '    privacy: public\n', 'b.example': '' }) });

  test('off a terminal it refuses without --auto-approve and changes nothing', async () => {
    const run = await cli.ws.run(['apply']);
    expect(run.code).toBe(1);
    expect(run.err).toContain('not a terminal, so there is no one to confirm: pass --auto-approve');
    expect(await domainsInDb(cli.server)).toEqual([]);
  });

  test('on a terminal it asks, and only "yes" applies', async () => {
    const questions: string[] = [];
    const prompt = async (question: string) => {
      questions.push(question);
      return 'y';
    };
    const no = await cli.ws.run(['apply'], { prompt });
    expect(no.code).toBe(1);
    expect(no.err).toContain('apply cancelled: nothing was changed\n');
    expect(await domainsInDb(cli.server)).toEqual([]);

    const yes = await cli.ws.run(['apply'], { prompt: async () => 'yes' });
    // stdout (with the plan) may be redirected: the question on the terminal carries the plan in one line.
    expect(questions).toEqual([
      `Apply to ${cli.server.url}: 2 to create, 0 to update, 0 to delete? Only "yes" is accepted: `,
    ]);
    expect(yes.code).toBe(0);
    expect(yes.out).toContain('applied 2 of 2 changes');
    expect(yes.out).toContain('read back: every applied change is in place');
    expect(await domainsInDb(cli.server)).toEqual(['a.example', 'b.example']);
  });

  test('a site changed while the prompt waited: refused, naming it', async () => {
    const prompt = async () => {
      await cli.ws.run(['apply', '--auto-approve']); // someone else applies first...
      await cli.server.server.store.updateWebsite(cli.server.accountId, 1, { email: 1 }, new Date()); // ...and edits a.example
      return 'yes';
    };
    cli.ws.write('websites.yaml', config({ 'a.example': '    privacy: private\n', 'b.example': '' }));
    await cli.ws.run(['apply', '--auto-approve']);
    cli.ws.write('websites.yaml', config({ 'a.example': '    privacy: public\n', 'b.example': '    email: true\n' }));
    const run = await cli.ws.run(['apply'], { prompt });
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      [
        'error: the plan is stale: 1 site moved since it was made:',
        '  a.example: changed since the plan was made (privacy: was private, now public; email: was false, now true)',
        'Nothing was applied. Run `sitesync apply` again and review the new plan.',
        '',
      ].join('\n'),
    );
  });

  test('--auto-approve applies, prints one line per change off a terminal, and a re-run has nothing to do', async () => {
    const first = await cli.ws.run(['apply', '--auto-approve']);
    expect(first.code).toBe(0);
    expect(first.err).toBe('applied  create a.example\napplied  create b.example\n');
    const again = await cli.ws.run(['apply', '--auto-approve']);
    expect(again.code).toBe(0);
    expect(again.out).not.toContain('applied');
    expect(again.err).toBe('');
    expect(await domainsInDb(cli.server)).toEqual(['a.example', 'b.example']);
  });

  test('a failure is reported in the summary, the rest applied, exit 1', async () => {
    const stranger = await cli.server.createAccount();
    const other = await fetch(`${cli.server.url}/api/v1/websites`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stranger.key}`,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'domain=a.example',
    });
    expect(other.status).toBe(201);
    const run = await cli.ws.run(['apply', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.out).toContain('applied 1 of 2 changes; 1 failed');
    expect(run.out).toMatch(/failed:\n {2}a\.example \(create\): POST \/api\/v1\/websites → 422: domain: /);
    expect(await domainsInDb(cli.server)).toEqual(['b.example']);
  });

  test('Ctrl-C at the prompt: "apply cancelled", nothing changed, exit 130; Ctrl-D: exit 1', async () => {
    const ctrlC = await cli.ws.run(['apply'], {
      prompt: async () => {
        throw new SitesyncError('interrupted', 'interrupted at the prompt');
      },
    });
    expect(ctrlC.code).toBe(130);
    expect(ctrlC.err).toBe('apply cancelled (interrupted): nothing was changed\n');
    const ctrlD = await cli.ws.run(['apply'], { prompt: async () => undefined });
    expect(ctrlD.code).toBe(1);
    expect(ctrlD.err).toBe('apply cancelled (end of input): nothing was changed\n');
    expect(await domainsInDb(cli.server)).toEqual([]);
  });

  test('the summary counts every request of the run, the listing included', async () => {
    // 1 listing + the account (creates: its allowance; 404 here) + 2 creates + 1 listing to read back
    // (one page is fewer requests than two reads).
    const run = await cli.ws.run(['apply', '--auto-approve']);
    expect(run.out).toMatch(/^applied 2 of 2 changes \(5 requests, \d+s\)$/m); // seconds: a loaded machine takes one
    await insertWebsite(cli.server, 'c.example');
    cli.ws.write('websites.yaml', config({ 'a.example': '    privacy: private\n', 'b.example': '', 'c.example': '' }));
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    // 1 staleness read + 1 update + 1 read back.
    const saved = await cli.ws.run(['apply', 'plan.json']);
    expect(saved.out).toMatch(/^applied 1 of 1 change \(3 requests, \d+s\)$/m);
  });

  test('--format json prints one document: the plan, then the result', async () => {
    const run = await cli.ws.run(['apply', '--auto-approve', '--format', 'json']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.out);
    expect(json).toMatchObject({
      formatVersion: '3.0',
      ok: true,
      plan: { formatVersion: '2.1', hasChanges: true, safe: true, summary: { create: 2 } },
      result: {
        counts: { applied: 2, failed: 0, skipped: 0, total: 2 },
        interrupted: false,
        verification: { status: 'checked', divergences: [] },
      },
      refusal: null,
    });
    expect(json.plan.changes.map((change: { domain: string }) => change.domain)).toEqual(['a.example', 'b.example']);
    expect(json.plan.changes[0].fields).toContainEqual({ field: 'privacy', after: 'public' });
    expect(json.result.changes).toEqual([
      { action: 'create', domain: 'a.example', id: 1, outcome: 'applied' },
      { action: 'create', domain: 'b.example', id: 2, outcome: 'applied' },
    ]);
  });

  test('--format json: a refused apply prints the plan and the refusal', async () => {
    cli.ws.write('websites.yaml', config({ 'a.example': '' }, 'prune: true\n'));
    await insertWebsite(cli.server, 'old.example');
    const run = await cli.ws.run(['apply', '--auto-approve', '--format', 'json']);
    expect(run.code).toBe(3);
    const json = JSON.parse(run.out);
    expect(json).toMatchObject({ formatVersion: '3.0', ok: false, result: null, refusal: { code: 'unsafe_plan' } });
    expect(json.plan.safety.map((violation: { rule: string }) => violation.rule)).toEqual(['suspected_rename']);
    expect(json.refusal.message).toBe(run.err.trimEnd());
  });

  test('an unwritable --journal is one clean error, before anything is applied', async () => {
    const run = await cli.ws.run(['apply', '--auto-approve', '--journal', 'no-such-dir/journal.jsonl']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^error: cannot open the journal \S+no-such-dir\/journal\.jsonl: ENOENT[^\n]*\n$/);
    expect(await domainsInDb(cli.server)).toEqual([]);
  });

  test('--journal writes one JSON line per operation', async () => {
    const run = await cli.ws.run(['apply', '--auto-approve', '--journal', 'journal.jsonl', '--parallelism', '1']);
    expect(run.code).toBe(0);
    const lines = readFileSync(join(cli.ws.dir, 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.event, line.domain ?? null])).toEqual([
      ['begin', null],
      ['planned', 'a.example'],
      ['planned', 'b.example'],
      ['started', 'a.example'],
      ['succeeded', 'a.example'],
      ['started', 'b.example'],
      ['succeeded', 'b.example'],
      ['end', null],
    ]);
    expect(lines[0]).toMatchObject({ url: cli.server.url, total: 2 });
    expect(lines.some((line) => 'target' in line)).toBe(false); // no targets: no target name
    expect(lines.every((line) => !Number.isNaN(Date.parse(line.time)))).toBe(true);
    expect(lines.at(-1)).toMatchObject({ counts: { applied: 2, failed: 0, skipped: 0, total: 2 }, interrupted: false });
  });

  test('Ctrl-C: writes waiting for the rate limiter stop at once and are skipped; exit 130', async () => {
    const { slow, slowWs, controller } = await interruptedAtFirstPost();
    try {
      // 3 requests a minute: the listing, the account and the first create; the other creates wait ~60 s for
      // the limiter, so only an interrupted wait ends the run within the test's 15 s.
      const argv = ['apply', '--auto-approve', '--parallelism', '4', '--rate-limit', '3'];
      const run = await slowWs.run(argv, { signal: controller.signal });
      expect(run.code).toBe(130);
      expect(run.out).toContain('applied 1 of 4 changes; 3 skipped');
      // b's wait was announced before the Ctrl-C; c and d, queued behind it, will never be sent: no notice for them.
      expect(run.err.match(/pacing at/g)).toHaveLength(1);
      expect(run.out).toContain(
        'interrupted: 3 changes not started (b.example, c.example, d.example); run the same command again to finish them',
      );
      expect(run.out).not.toContain('(create): not started');
      expect(await domainsInDb(slow)).toEqual(['a.example']);
    } finally {
      await slow.close();
    }
  }, 15_000);

  test('on a terminal, a wait for the rate limit is its own line above the live line, which counts it down', async () => {
    const controller = new AbortController();
    cli.ws.write('websites.yaml', config({ 'a.example': '', 'b.example': '', 'c.example': '' }));
    // 3 requests a minute: the listing, the account and a's create; b waits ~61 s, and the test stops the run
    // at its notice.
    const argv = ['apply', '--auto-approve', '--parallelism', '1', '--rate-limit', '3'];
    const run = await cli.ws.run(argv, {
      tty: true,
      signal: controller.signal,
      onStderr: (text) => text.includes('pacing at') && controller.abort(),
    });
    expect(run.code).toBe(130);
    const CLEAR = '\r\x1b[K';
    const [before, after] = run.err.split(`${CLEAR}warn: pacing at 3 requests/min: waiting 61 s\n`);
    // The live line was cleared before the notice (never glued to it), then drawn again under it with the wait.
    expect(before).toMatch(/applying 1\/3 · [\d.]+ changes\/min · about 1m \d+s left$/);
    expect(after).toMatch(
      /^\r\x1b\[Kapplying 1\/3 · [\d.]+ changes\/min · about 1m \d+s left · waiting 61 s for the rate limit/,
    );
  });

  test('Ctrl-C: the change in flight finishes, the rest are skipped, summary printed, exit 130', async () => {
    const { slow, slowWs, controller } = await interruptedAtFirstPost();
    try {
      const run = await slowWs.run(['apply', '--auto-approve', '--parallelism', '1'], { signal: controller.signal });
      expect(run.code).toBe(130);
      expect(run.out).toContain('applied 1 of 4 changes; 3 skipped');
      expect(run.out).toContain(
        'interrupted: 3 changes not started (b.example, c.example, d.example); run the same command again to finish them',
      );
      // One line for them all: neither a progress line nor a summary line per change not started.
      expect(`${run.out}${run.err}`).not.toContain('not started: the run was interrupted');
      expect(await domainsInDb(slow)).toEqual(['a.example']);
    } finally {
      await slow.close();
    }
  });
});

/** A fresh server whose first POST aborts `controller` (Ctrl-C mid-apply), and a workspace for four new sites. */
async function interruptedAtFirstPost() {
  const controller = new AbortController();
  const slow = await startTestServer({ log: (line) => line.includes('"POST"') && controller.abort() });
  const slowWs = workspace(slow);
  slowWs.write('websites.yaml', config({ 'a.example': '', 'b.example': '', 'c.example': '', 'd.example': '' }));
  return { slow, slowWs, controller };
}
