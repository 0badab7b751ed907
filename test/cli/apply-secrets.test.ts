// No secret in anything apply runs leave behind: stdout, stderr (debug logs,
// progress, errors), plan files, journals. The API key and every website
// password used are searched for in all of it, in output captured before the
// terminal's last-line redaction (so a leak cannot hide behind it), and in
// the reference server's request log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { config, type Workspace, workspace } from './apply-support.js';

const PASSWORDS = { SITESYNC_SHOP_PASSWORD: 'correct-horse-battery-9', SITESYNC_BLOG_PASSWORD: 'tr0ub4dor&3-long' };

describe('secrets stay out of apply output and files', () => {
  let server: TestServer;
  let ws: Workspace;
  const files: string[] = [];
  const serverLog: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ log: (line) => serverLog.push(line) });
    ws = workspace(server, PASSWORDS);
    const run = ws.run;
    ws.run = (argv, io = {}) => run(argv, { ...io, unredacted: true });
  });
  afterAll(() => server.close());

  test('every run of plan and apply, in every format and failure, leaks nothing', async () => {
    // biome-ignore-start lint/suspicious/noTemplateCurlyInString: ${VAR} references in YAML, not templates
    const sites = {
      'shop.example': '    privacy: password\n    password: ${SITESYNC_SHOP_PASSWORD}\n',
      'blog.example': '    privacy: password\n    password: ${SITESYNC_BLOG_PASSWORD}\n    email: true\n',
      'taken.example': '',
    };
    // biome-ignore-end lint/suspicious/noTemplateCurlyInString: ${VAR} references in YAML, not templates
    ws.write('websites.yaml', config(sites));
    const stranger = await server.createAccount();
    await fetch(`${server.url}/api/v1/websites`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stranger.key}`,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'domain=taken.example',
    });

    expect((await ws.run(['plan', '--out', 'plan.json', '--log-level', 'debug'])).code).toBe(0);
    files.push(join(ws.dir, 'plan.json'));
    await ws.run(['plan', '--format', 'markdown']);
    await ws.run(['plan', '--format', 'json']);
    const applied = await ws.run(['apply', 'plan.json', '--journal', 'journal.jsonl', '--log-level', 'debug']);
    expect(applied.code).toBe(1); // taken.example belongs to another account
    files.push(join(ws.dir, 'journal.jsonl'));
    await ws.run(['apply', 'plan.json', '--format', 'json']); // nothing left but the failure
    await ws.run(['apply', '--auto-approve', '--format', 'json', '--journal', 'journal.jsonl', '--sync-write-only']);
    await ws.run(['apply', '--auto-approve', '--sync-write-only', '--log-level', 'debug'], { tty: true });
    await ws.run(['apply', '--api-key-file', 'missing-key-file']);

    // The passwords were really used: the server stored them.
    const shop = await server.server.store.getWebsite(server.accountId, 1);
    expect(shop?.passwordHash).not.toBeNull();

    const everything = [...ws.outputs, ...files.map((file) => readFileSync(file, 'utf8')), ...serverLog].join('\n');
    expect(everything.length).toBeGreaterThan(2_000);
    for (const secret of [server.key, ...Object.values(PASSWORDS)]) {
      expect(everything.includes(secret), `a secret of ${secret.length} characters leaked`).toBe(false);
    }
  });
});
