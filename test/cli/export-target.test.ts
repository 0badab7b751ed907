// Adopting an account into a repository with targets (issue 22, item 9):
// `export --target legacy --out legacy.yaml` writes the target's file relative
// to the defaults websites.yaml already gives (no `defaults:` of its own, which
// validate would refuse), so validate passes and the plan is zero changes.
import { describe, expect, it } from 'vitest';
import { insertWebsite } from '../helpers/server.js';
import { useTargetServers } from '../helpers/targets.js';

const fixture = useTargetServers(
  { legacy: {} },
  {
    setup: () => {
      fixture.ws.write(
        'websites.yaml',
        `version: 1\ndefaults:\n  exclude_bots: true\n  favorite: true\ntargets:\n  - name: legacy\n    url: ${fixture.legacy.url}\n    key_env: SITESYNC_LEGACY_KEY\n    files: [legacy.yaml]\n`,
      );
    },
  },
);

describe('export --target', () => {
  it('writes relative to the inherited defaults: validate passes, the plan has no changes', async () => {
    // Ten sites that share settings other than the repository's defaults (e-mail on, bots counted, no favourites).
    for (let i = 0; i < 10; i++) {
      await insertWebsite(fixture.legacy, `site-${i}.legacy.example`, {
        values: { email: 1, excludeBots: 0, favoritedAt: i === 0 ? '2026-01-01T00:00:00' : null },
      });
    }
    const exported = await fixture.ws.run(['export', '--target', 'legacy', '--out', 'legacy.yaml']);
    expect(exported.code, exported.err).toBe(0);
    const validated = await fixture.ws.run(['validate']);
    expect(validated.code, validated.out).toBe(0);
    const planned = await fixture.ws.run(['plan', '--detailed-exitcode']);
    expect(planned.code, planned.out).toBe(0);
    expect(planned.out).toContain('No changes. 10 websites match the configuration.');
  });

  it('a target opts out of the shared websites: export says so, and adoption plans to zero (issue 38, item 8)', async () => {
    await insertWebsite(fixture.legacy, 'only.legacy.example', {
      values: { email: 1, excludeBots: 1, favoritedAt: '2026-01-01T00:00:00' },
    });
    const declaring = (optOut: string) =>
      `version: 1\ntargets:\n  - name: legacy\n    url: ${fixture.legacy.url}\n    key_env: SITESYNC_LEGACY_KEY\n    files: [legacy.yaml]\n${optOut}websites:\n  - domain: shared-a.example\n  - domain: shared-b.example\n`;
    fixture.ws.write('websites.yaml', declaring(''));
    const exported = await fixture.ws.run(['export', '--target', 'legacy', '--out', 'legacy.yaml']);
    expect(exported.code, exported.err).toBe(0);
    expect(exported.err).toContain(
      'warning: target legacy also gets the 2 websites websites.yaml lists for every target: plan --target legacy creates those its account lacks; set shared_websites: false in its targets: entry to keep them out',
    );
    const shared = await fixture.ws.run(['plan', '--target', 'legacy', '--detailed-exitcode']);
    expect(shared.code).toBe(2);
    expect(shared.out).toContain('2 to create');

    fixture.ws.write('websites.yaml', declaring('    shared_websites: false\n'));
    const optedOut = await fixture.ws.run(['plan', '--target', 'legacy', '--detailed-exitcode']);
    expect(optedOut.code, optedOut.out).toBe(0);
    expect(optedOut.out).toContain('No changes. 1 website matches the configuration.');
    fixture.ws.write('legacy.yaml', '');
    const again = await fixture.ws.run(['export', '--target', 'legacy', '--out', 'legacy.yaml', '--force']);
    expect(again.err).not.toContain('warning:');
  });
});
