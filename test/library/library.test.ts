// The library API (docs/library.md) against a real reference server: the same
// engine as the CLI, with the safety gate inside apply, events and cancellation.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { apply, type EngineEvent, exportSites, plan, planTargets, validate } from '../../src/index.js';
import { domainsInDb, seedWebsites } from '../apply/support.js';
import { config } from '../cli/apply-support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDirWith } from '../helpers/temp.js';

describe('library API', () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeEach(async () => {
    server = await startTestServer();
    env = { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key };
  });
  afterEach(async () => server.close());

  test('plan reads ./websites.yaml, lists, and tells its progress as events', async () => {
    const cwd = tempDirWith('library-plan', { 'websites.yaml': config({ 'a.example': '', 'b.example': '' }) });
    const events: EngineEvent['type'][] = [];
    const result = await plan({ cwd, env, onEvent: (event) => events.push(event.type) });
    expect(result.url).toBe(server.url);
    expect(result.plan.changes.map((change) => `${change.action} ${change.domain}`)).toEqual([
      'create a.example',
      'create b.example',
    ]);
    expect(events).toEqual(['listed']);
    expect(JSON.parse(result.savedPlan)).toMatchObject({ target: server.url });
    // Messages name this API's options, not the command line's flags.
    await expect(plan({ cwd, env, only: ['typo.example'] })).rejects.toThrow(
      'only typo.example matches no website in the configuration or the account',
    );
  });

  test('a URL of the configuration is used only when pinned: SITESYNC_ALLOWED_ORIGINS or allowedOrigins (issue 33)', async () => {
    const cwd = tempDirWith('library-pin', {
      'websites.yaml': `version: 1\napi:\n  url: ${server.url}\nwebsites:\n  - domain: a.example\n`,
    });
    const keyOnly = { SITESYNC_API_KEY: server.key };
    await expect(plan({ cwd, env: keyOnly })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining(`api.url ${server.url} is not a pinned origin`),
    });
    await expect(apply({ cwd, env: keyOnly })).rejects.toThrow('is not a pinned origin');
    expect(await domainsInDb(server)).toEqual([]);
    expect((await plan({ cwd, env: keyOnly, allowedOrigins: [server.url] })).url).toBe(server.url);
    expect((await plan({ cwd, env: { ...keyOnly, SITESYNC_ALLOWED_ORIGINS: server.url } })).url).toBe(server.url);
  });

  test('apply writes the plan, then a plan has nothing to do; a saved plan is admitted and applied', async () => {
    const cwd = tempDirWith('library-apply', { 'websites.yaml': config({ 'a.example': '' }) });
    const applied = await apply({ cwd, env });
    expect(applied.kind).toBe('applied');
    expect(await domainsInDb(server)).toEqual(['a.example']);
    expect((await apply({ cwd, env })).kind).toBe('nothing_to_do');
    const more = tempDirWith('library-saved', { 'websites.yaml': config({ 'a.example': '', 'c.example': '' }) });
    const { savedPlan } = await plan({ cwd: more, env });
    const outcome = await apply({ cwd: more, env, savedPlan });
    expect(outcome.kind === 'applied' && outcome.result.counts).toMatchObject({ applied: 1 });
    expect(await domainsInDb(server)).toEqual(['a.example', 'c.example']);
  });

  test('the safety gate runs inside apply: deletes past the limit are refused until acknowledged', async () => {
    await seedWebsites(server, ['keep.example', 'd1.example', 'd2.example', 'd3.example', 'd4.example']);
    const cwd = tempDirWith('library-gate', { 'websites.yaml': config({ 'keep.example': '' }, 'prune: true\n') });
    const refused = await apply({ cwd, env });
    expect(refused.kind).toBe('refused');
    expect(refused.kind === 'refused' && refused.refusal.reason).toBe('unsafe');
    expect(await domainsInDb(server)).toHaveLength(5);
    const acknowledged = await apply({ cwd, env, acknowledge: { maxDeletes: 4 } });
    expect(acknowledged.kind).toBe('applied');
    expect(await domainsInDb(server)).toEqual(['keep.example']);
  });

  test('a confirmation that says no writes nothing; an aborted signal stops before any request', async () => {
    const cwd = tempDirWith('library-confirm', { 'websites.yaml': config({ 'x.example': '' }) });
    const asked: number[] = [];
    const declined = await apply({ cwd, env, confirm: async (planned) => asked.push(planned.changes.length) < 0 });
    expect(asked).toEqual([1]);
    expect(declined.kind === 'refused' && declined.refusal).toEqual({ reason: 'cancelled', answer: 'no' });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(apply({ cwd, env, signal: controller.signal })).rejects.toThrow();
    expect(await domainsInDb(server)).toEqual([]);
  });

  test('validate and exportSites: problems as values, the live sites as YAML', async () => {
    const bad = tempDirWith('library-validate', { 'websites.yaml': 'version: 1\nwebsites:\n  - domain: 12\n' });
    const checked = await validate({ cwd: bad, env });
    expect(checked.valid).toBe(false);
    expect(checked.errors[0]).toMatchObject({ path: 'websites[0].domain', source: { file: 'websites.yaml', line: 3 } });
    await seedWebsites(server, ['e.example']);
    const exported = await exportSites({ env, cwd: bad });
    expect(exported.count).toBe(1);
    expect(exported.text).toContain('domain: e.example');
  });

  test('planTargets plans each target; its events carry the target name; a failing target is its own', async () => {
    const other = await startTestServer();
    try {
      const cwd = tempDirWith('library-targets', {
        'websites.yaml': `version: 1
targets:
  - name: one
    url: ${server.url}
    key_env: SITESYNC_ONE_KEY
  - name: two
    url: ${other.url}
    key_env: SITESYNC_TWO_KEY
  - name: broken
    url: ${other.url}
    key_env: SITESYNC_BROKEN_KEY
websites:
  - domain: shared.example
`,
      });
      const listed: string[] = [];
      const settled = await planTargets({
        cwd,
        env: {
          SITESYNC_ONE_KEY: server.key,
          SITESYNC_TWO_KEY: other.key,
          SITESYNC_BROKEN_KEY: 'not-the-key-0123456789',
        },
        // Pinned by the caller: the library's option, beside SITESYNC_ALLOWED_ORIGINS (issue 33).
        allowedOrigins: [server.url, other.url],
        onEvent: (event) => {
          if (event.type === 'listed') listed.push(event.name ?? '?');
        },
      });
      expect(settled.map((end) => [end.target.name, end.ok])).toEqual([
        ['one', true],
        ['two', true],
        ['broken', false],
      ]);
      expect(settled[1]?.ok && settled[1].value.url).toBe(other.url);
      expect(listed.sort()).toEqual(['one', 'two']);
    } finally {
      await other.close();
    }
  });
});
