/**
 * Where a key may be sent is decided outside the repository (issue 33 item 1):
 * a configuration chooses among the origins pinned by --url, SITESYNC_URL and
 * SITESYNC_ALLOWED_ORIGINS, never a new one. Each reproduction of the issue
 * points a target or api.url at a recording socket: the run is refused before
 * any request, naming the target and the field, and the socket sees nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ConnectionRecorder, startConnectionRecorder } from '../helpers/connection-recorder.js';
import { useCliFixture } from './apply-support.js';

const fixture = useCliFixture();
let recorder: ConnectionRecorder;
beforeEach(async () => {
  recorder = await startConnectionRecorder();
});
afterEach(() => recorder.close());

const oneTarget = (url: string, keyEnv = 'SITESYNC_API_KEY') =>
  `version: 1\ntargets:\n  - name: production\n    url: ${url}\n    key_env: ${keyEnv}\nwebsites:\n  - domain: a.example\n`;

describe('a target whose URL is not pinned', () => {
  it('is refused before any request although SITESYNC_URL is set (it pins its own origin only)', async () => {
    fixture.ws.write('websites.yaml', oneTarget(recorder.url));
    for (const command of [['plan'], ['apply', '--auto-approve'], ['plan', '--format', 'markdown']]) {
      const run = await fixture.ws.run(command);
      expect(run.code, run.err).toBe(1);
      expect(run.err).toContain(`target production: url ${recorder.url} is not a pinned origin`);
      expect(run.err).toContain('SITESYNC_ALLOWED_ORIGINS');
    }
    expect(recorder.connections).toEqual([]);
  });

  it('is refused although another target is pinned: nothing is sent to either', async () => {
    const staging = await startConnectionRecorder();
    try {
      fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = staging.url;
      fixture.ws.write(
        'websites.yaml',
        `version: 1\ntargets:\n  - name: staging\n    url: ${staging.url}\n    key_env: SITESYNC_API_KEY\n  - name: production\n    url: ${recorder.url}\n    key_env: SITESYNC_API_KEY\nwebsites:\n  - domain: a.example\n`,
      );
      for (const command of [['apply', '--auto-approve'], ['plan'], ['plan', '--target', 'production']]) {
        const run = await fixture.ws.run(command);
        expect(run.code, run.err).toBe(1);
        expect(run.err).toContain('target production: url');
      }
      expect(staging.connections).toEqual([]);
      expect(recorder.connections).toEqual([]);
    } finally {
      await staging.close();
    }
  });

  it('is used once SITESYNC_ALLOWED_ORIGINS names its origin (one of several, spaces and a slash allowed)', async () => {
    fixture.ws.write('websites.yaml', oneTarget(fixture.server.url));
    delete fixture.ws.env.SITESYNC_URL;
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = `https://stats.example.com, ${fixture.server.url}/`;
    const run = await fixture.ws.run(['plan']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('a.example');
  });

  it('is used when SITESYNC_URL names its origin, whatever the path', async () => {
    fixture.ws.write('websites.yaml', oneTarget(fixture.server.url));
    fixture.ws.env.SITESYNC_URL = `${fixture.server.url}/`;
    const run = await fixture.ws.run(['plan']);
    expect(run.code, run.err).toBe(0);
  });

  it('compares origins, not text: another port or scheme of the same host is another origin', async () => {
    const other = new URL(fixture.server.url);
    fixture.ws.write('websites.yaml', oneTarget(recorder.url));
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = `http://127.0.0.1,https://127.0.0.1:${new URL(recorder.url).port},${other.origin}`;
    const run = await fixture.ws.run(['plan']);
    expect(run.code).toBe(1);
    expect(run.err).toContain('is not a pinned origin');
    expect(recorder.connections).toEqual([]);
  });

  it('an allow-list entry that is not an origin is a usage error naming the variable', async () => {
    fixture.ws.write('websites.yaml', oneTarget(fixture.server.url));
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = `${fixture.server.url}/api`;
    const run = await fixture.ws.run(['plan']);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`SITESYNC_ALLOWED_ORIGINS: "${fixture.server.url}/api" is not an origin`);
  });
});

describe('api.url', () => {
  const withApiUrl = (url: string) => `version: 1\napi:\n  url: ${url}\nwebsites:\n  - domain: a.example\n`;

  it('is not used unless pinned: no loopback origin is trusted by default', async () => {
    fixture.ws.write('websites.yaml', withApiUrl(recorder.url));
    delete fixture.ws.env.SITESYNC_URL;
    const run = await fixture.ws.run(['plan']);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`api.url ${recorder.url} is not a pinned origin`);
    expect(run.err).toContain('SITESYNC_URL');
    expect(recorder.connections).toEqual([]);
  });

  it('is used when its origin is allowed', async () => {
    fixture.ws.write('websites.yaml', withApiUrl(fixture.server.url));
    delete fixture.ws.env.SITESYNC_URL;
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = fixture.server.url;
    const run = await fixture.ws.run(['plan']);
    expect(run.code, run.err).toBe(0);
  });

  it(`never expands \${VAR}: a secret in the path is refused, never sent nor shown`, async () => {
    fixture.ws.env.OTHER_SECRET = 'other-secret-value-0001';
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = recorder.url;
    fixture.ws.write('websites.yaml', withApiUrl(`${recorder.url}/\${OTHER_SECRET}`));
    delete fixture.ws.env.SITESYNC_URL;
    for (const command of [['plan'], ['validate']]) {
      const run = await fixture.ws.run(command);
      expect(run.code).toBe(1);
      expect(`${run.out}${run.err}`).toContain(`\${…} is resolved only in password`);
    }
    expect(fixture.ws.outputs.join('')).not.toContain('other-secret-value-0001');
    expect(recorder.connections).toEqual([]);
  });
});

describe('key_env', () => {
  it('reads only a SITESYNC_ variable: another is refused at its line, and nothing is sent', async () => {
    fixture.ws.env.TEAM_WEBHOOK = 'https://hooks.example/T0/secret-token-0001';
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = recorder.url;
    fixture.ws.write('websites.yaml', oneTarget(recorder.url, 'TEAM_WEBHOOK'));
    for (const command of [['plan'], ['validate']]) {
      const run = await fixture.ws.run(command);
      expect(run.code).toBe(1);
      expect(`${run.out}${run.err}`).toContain(
        'websites.yaml:5:14: targets[0].key_env "TEAM_WEBHOOK": a key is read only from a variable whose name starts with SITESYNC_',
      );
    }
    expect(fixture.ws.outputs.join('')).not.toContain('secret-token-0001');
    expect(recorder.connections).toEqual([]);
  });
});
