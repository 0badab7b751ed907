/**
 * `sitesync export` of a value the service accepted but `validate` refuses
 * (an IP entry with a leading zero), against the reference server over real
 * HTTP: exported as is, with a warning naming site and entry and a comment on
 * its line, so the file is never silently invalid.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { type Workspace, workspace } from './apply-support.js';

describe('sitesync export: entries the service accepted that validate refuses', () => {
  let server: TestServer;
  let ws: Workspace;

  beforeAll(async () => {
    server = await startTestServer();
    const api = client(server);
    const sites = [
      { domain: 'office.example', exclude_ips: '10.0.0.1\r\n192.168.001.1' },
      { domain: 'clean.example', exclude_ips: '10.0.0.2' },
    ];
    for (const form of sites) expect((await api('POST', '/api/v1/websites', { form })).status).toBe(201);
    ws = workspace(server);
  });
  afterAll(async () => server.close());

  it('warns on stderr, comments the line, and validate then points at the entry', async () => {
    const run = await ws.run(['export', '--out', 'exp.yaml']);
    expect(run).toMatchObject({
      code: 0,
      out: '',
      err:
        'warning: office.example: exclude_ips entry "192.168.001.1" is not an IP address or CIDR range; exported as is, with a comment: validate refuses the file until you correct it\n' +
        'exported 2 websites to exp.yaml\n',
    });
    const text = readFileSync(join(ws.dir, 'exp.yaml'), 'utf8');
    expect(text).toContain(
      '  - domain: office.example\n    exclude_ips: [10.0.0.1, 192.168.001.1] # not an IP address or CIDR range: "192.168.001.1" (the service accepted it; validate does not): correct it\n',
    );
    expect(text).toContain('  - domain: clean.example\n    exclude_ips: [10.0.0.2]\n');

    const validated = await ws.run(['validate', '-f', 'exp.yaml']);
    expect(validated.code).toBe(1);
    expect(validated.out).toBe(
      'exp.yaml:9:29: websites[1].exclude_ips[1] is not an IP address or CIDR range: "192.168.001.1"\n' +
        'invalid: 1 error, 0 warnings\n',
    );
  });
});
