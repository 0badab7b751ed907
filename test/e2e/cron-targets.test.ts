// examples/cron/drift-check.sh over targets (issue 22 item 8): each target's
// key comes from the variable its key_env names, which SITESYNC_KEY_DIR fills
// from one file per variable, as SITESYNC_API_KEY_FILE does for one key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { keyVariable, useTargetServers } from '../helpers/targets.js';
import { runDriftCheck } from './drift-check-script.js';

describe('examples/cron/drift-check.sh with targets', () => {
  const fixture = useTargetServers({ staging: {}, production: {} });

  const configuration = () =>
    [
      'version: 1',
      'targets:',
      ...(['staging', 'production'] as const).flatMap((name) => [
        `  - name: ${name}`,
        `    url: ${fixture[name].url}`,
        `    key_env: ${keyVariable(name)}`,
      ]),
      'websites:',
      '  - domain: cron-a.example',
      '',
    ].join('\n');

  test('SITESYNC_KEY_DIR gives each target its key from a file named after its variable', async () => {
    const { ws } = fixture;
    ws.write('websites.yaml', configuration());
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    const keys = join(ws.dir, 'keys');
    mkdirSync(keys);
    for (const name of ['staging', 'production'] as const) {
      writeFileSync(join(keys, keyVariable(name)), `${fixture[name].key}\n`);
    }
    const { SITESYNC_STAGING_KEY: _staging, SITESYNC_PRODUCTION_KEY: _production, ...env } = ws.env;
    expect(await runDriftCheck(ws, { ...env, SITESYNC_KEY_DIR: keys })).toEqual({ code: 0, stdout: '' });

    writeFileSync(join(keys, 'not-a-variable'), 'x');
    const refused = await runDriftCheck(ws, { ...env, SITESYNC_KEY_DIR: keys });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('name each key file after its variable');
  });
});
