/**
 * What the deployed service does that sitesync must match (issue 11): every
 * `www.` removed, untrimmed list lines, odd-but-stored domains, duplicate
 * rows, field sizes. Each runs the CLI against the reference server in both modes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { config, type Workspace, workspace } from './apply-support.js';

const MODES = ['normal', 'phpanalytics-v31'] as const;

describe.each(MODES)('the service, exactly (%s)', (mode) => {
  let server: TestServer;
  let ws: Workspace;
  async function start(): Promise<void> {
    server = await startTestServer(mode === 'normal' ? {} : { quirks: mode });
    ws = workspace(server);
  }
  afterEach(() => server.close());

  it('www.www.solo.example converges: applied once, then nothing to do', async () => {
    await start();
    ws.write('websites.yaml', config({ 'www.www.solo.example': '    privacy: public\n' }));
    const validate = await ws.run(['validate']);
    expect(validate.err + validate.out).toContain('is read as solo.example');
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    const again = await ws.run(['plan', '--format', 'json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out).changes).toEqual([]);
  });

  it('two live rows of one canonical domain: noted in every format, oldest matched, the other never pruned', async () => {
    await start();
    await insertWebsite(server, 'x.example', { values: { privacy: 0 } });
    await insertWebsite(server, 'x.example.', { values: { privacy: 0 } });
    ws.write('websites.yaml', config({ 'x.example': '    privacy: public\n' }, 'prune: true\n'));
    const json = JSON.parse((await ws.run(['plan', '--format', 'json'])).out);
    expect(json.changes).toEqual([]);
    expect(json.notes).toContainEqual(expect.objectContaining({ kind: 'duplicate_domain', ids: [1, 2] }));
    for (const format of ['human', 'markdown']) {
      const run = await ws.run(['plan', '--format', format]);
      expect(run.out).toContain('x.example is held 2 times by the service (ids 1, 2)');
    }
    const exported = await ws.run(['export', '--out', 'exported.yaml']);
    expect(exported.code).toBe(0);
    const text = readFileSync(join(ws.dir, 'exported.yaml'), 'utf8');
    expect(text.match(/domain: x\.example/g)).toHaveLength(1);
    expect(text).toContain('also holds this domain as id 2');
    const validated = await ws.run(['validate', '--file', 'exported.yaml']);
    expect(validated.err + validated.out).toContain('valid (1 website, 0 warnings)');
    expect(validated.code).toBe(0);
  });

  it('a_b.example, stored by the service: export, validate (warning only) and a pruning plan change nothing', async () => {
    await start();
    await insertWebsite(server, 'a_b.example', { values: { privacy: 0 } });
    await insertWebsite(server, 'plain.example', { values: { privacy: 0 } });
    expect((await ws.run(['export', '--out', 'exported.yaml'])).code).toBe(0);
    const exported = readFileSync(join(ws.dir, 'exported.yaml'), 'utf8');
    ws.write('websites.yaml', exported.replace('version: 1\n', 'version: 1\nprune: true\n'));
    const validated = await ws.run(['validate']);
    expect(validated.code).toBe(0);
    expect(validated.err + validated.out).toContain('not a standard hostname');
    const planned = await ws.run(['plan', '--format', 'json']);
    expect(planned.code).toBe(0);
    expect(JSON.parse(planned.out).changes).toEqual([]);
  });

  it('a live exclude_ips line with spaces is a difference, and apply repairs it', async () => {
    await start();
    await insertWebsite(server, 'ips.example', {
      values: { privacy: 0, excludeIps: '192.0.2.1\n 10.0.0.0/8 ', excludeParams: 'ref\r\nutm' },
    });
    const ips = '    privacy: public\n    exclude_ips: [192.0.2.1, 10.0.0.0/8]\n    exclude_params: [utm, ref]\n';
    ws.write('websites.yaml', config({ 'ips.example': ips }));
    const before = await ws.run(['plan', '--format', 'json']);
    const changes = JSON.parse(before.out).changes;
    expect(changes).toHaveLength(1);
    expect(JSON.stringify(changes[0])).toContain(' 10.0.0.0/8 ');
    expect(JSON.stringify(changes[0])).not.toContain('exclude_params');
    const text = await ws.run(['plan']);
    expect(text.out).toContain('exclude_ips');
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(JSON.parse((await ws.run(['plan', '--format', 'json'])).out).changes).toEqual([]);
  });
});

describe('field sizes', () => {
  it("validate refuses a list over the service's 65,535 bytes, naming file:line", async () => {
    const server = await startTestServer();
    try {
      const ws = workspace(server);
      const ips = Array.from({ length: 5_000 }, (_, i) => `      - 10.${(i >> 8) & 255}.${i & 255}.1/32\n`).join('');
      ws.write(
        'websites.yaml',
        config({ 'small.example': '    email: true\n', 'big.example': `    exclude_ips:\n${ips}` }),
      );
      const run = await ws.run(['validate']);
      expect(run.code).not.toBe(0);
      expect(run.err + run.out).toMatch(
        /websites\.yaml:7:\d+.*exclude_ips.*bytes as sent, more than the 65,535 bytes/s,
      );
    } finally {
      await server.close();
    }
  });
});
