/**
 * Policies under `sitesync watch`: each check exports
 * sitesync_policy_violations{target,policy,severity} (every applying policy
 * has a series, 0 when kept), self-heal never makes a change that breaks an
 * error policy (it is skipped, named), and a policy edited on disk is picked up
 * by the next cycle. Real reference server, manual clock.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../helpers/manual-clock.js';
import { client, insertWebsite, STORED_DEFAULTS, startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { useCleanups, watchOneAccount } from './support.js';

const cleanups = useCleanups();

const config = (severity: string) => `version: 1
policies:
  - name: no-public
    rule: site.privacy != "public"
    message: no website is public
    severity: ${severity}
  - name: bots
    rule: site.exclude_bots
    message: every website excludes bots
    severity: warning
websites:
  - domain: a.example
    privacy: public
  - domain: b.example
    privacy: private
  - domain: c.example
    privacy: public
`;

describe('watch and policies', () => {
  it('exports the violations per policy and never heals a change that breaks an error policy', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const ids: Record<string, number> = {};
    for (const domain of ['a.example', 'b.example', 'c.example'])
      ids[domain] = await insertWebsite(server, domain, { values: STORED_DEFAULTS });
    // b.example is live public: healing it to private breaks nothing; a and c would become public.
    await client(server)('PATCH', `/api/v1/websites/${ids['b.example']}`, { form: { privacy: '0' } });
    const dir = tempDir('watch-policies');
    writeFileSync(join(dir, 'websites.yaml'), config('error'));
    const watch = await watchOneAccount(server, dir, cleanups, {
      heal: { mode: 'drift', maxPerCycle: 5, allowDelete: [], windows: [], maxFailures: 3 },
      clock: manualClock(Date.parse('2026-07-06T12:00:00Z')),
    });
    await watch.run(1);
    const text = await watch.metrics.text();
    expect(text).toContain('sitesync_policy_violations{target="default",policy="no-public",severity="error"} 2');
    expect(text).toContain('sitesync_policy_violations{target="default",policy="bots",severity="warning"} 0');
    const heals = watch.lines
      .filter((line) => String(line.msg).startsWith('self-heal'))
      .map((line) => [line.domain, line.result, line.reason]);
    expect(heals).toEqual([
      ['a.example', 'skipped', 'it breaks the error policy no-public'],
      ['c.example', 'skipped', 'it breaks the error policy no-public'],
      ['b.example', 'applied', undefined],
    ]);
    const listed = await client(server)('GET', '/api/v1/websites?per_page=100');
    const privacy = Object.fromEntries(
      listed.body.data.map((site: { domain: string; privacy: number }) => [site.domain, site.privacy]),
    );
    expect(privacy).toEqual({ 'a.example': 1, 'b.example': 1, 'c.example': 1 });

    // A warning never blocks: the next cycle heals a and c, and the series follow the configuration.
    writeFileSync(join(dir, 'websites.yaml'), config('warning'));
    await watch.run(2);
    const after = await watch.metrics.text();
    expect(after).not.toContain('severity="error"');
    expect(after).toContain('sitesync_policy_violations{target="default",policy="no-public",severity="warning"} 2');
    const healed = watch.lines.filter((line) => line.msg === 'self-heal applied').map((line) => line.domain);
    expect(healed).toEqual(['b.example', 'a.example', 'c.example']);
  });
});
