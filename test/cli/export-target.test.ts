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
});
