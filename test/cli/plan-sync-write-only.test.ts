/**
 * `--sync-write-only` takes fields and sites, end to end against the
 * reference server behaving as the real service (it never returns
 * exclude_params nor a password): a reviewer sees the one update that was
 * asked for, not one per site, and plan needs only the passwords it sends.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliFixture } from './apply-support.js';

const EXAMPLE = resolve('examples/realistic.yaml');
const PASSWORDS = {
  SITESYNC_ACME_PARTNERS_STATS_PASSWORD: 'partners-pw-4711-long',
  SITESYNC_ORBIT_INVESTORS_STATS_PASSWORD: 'investors-pw-0815-long',
};

interface Update {
  domain: string;
  fields: { field: string }[];
}

describe('sitesync plan --sync-write-only FIELD|DOMAIN|GLOB', () => {
  const cli = useCliFixture({
    server: { quirks: 'phpanalytics-v31' },
    env: PASSWORDS,
    before: async ({ ws, server }) => {
      const applied = await ws.run(['apply', '-f', EXAMPLE, '--url', server.url, '--auto-approve']);
      expect(applied.code).toBe(0);
    },
  });
  const plan = async (args: string[], env: Record<string, string | undefined> = PASSWORDS) => {
    Object.assign(cli.ws.env, env);
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete cli.ws.env[name];
    return cli.ws.run(['plan', '-f', EXAMPLE, '--url', cli.server.url, '--format', 'json', ...args]);
  };
  const updates = (out: string): string[] =>
    (JSON.parse(out).changes as Update[]).map(
      (change) => `${change.domain}: ${change.fields.map((f) => f.field).join(' ')}`,
    );

  it('the bare flag re-sends every write-only value of every site (22 updates)', async () => {
    const run = await plan(['--sync-write-only']);
    expect(run.code).toBe(3); // 22 updates of 22 sites: over limits.max_change_percent
    expect(JSON.parse(run.out).safety[0].rule).toBe('max_change_percent');
    const all = updates(run.out);
    expect(all).toHaveLength(22);
    expect(all).toContain('partners.acme.example: excludeParams password');
  });

  it('exclude_params with --only shop.acme.example: exactly 1 update, of that field', async () => {
    const run = await plan(['--sync-write-only', 'exclude_params', '--only', 'shop.acme.example']);
    expect(run.err).toBe('');
    expect(updates(run.out)).toEqual(['shop.acme.example: excludeParams']);
  });

  it('password alone: only the two password-protected sites, only their password', async () => {
    const run = await plan(['--sync-write-only', 'password']);
    expect(updates(run.out)).toEqual(['investors.orbit.example: password', 'partners.acme.example: password']);
    // The bare flag is `*` (no narrowing), so it combines the same in any order.
    const bareFirst = await plan(['--sync-write-only', '--sync-write-only', 'password']);
    expect(updates(bareFirst.out)).toEqual(updates(run.out));
  });

  it('a domain or glob selects sites, every field; fields and sites combine (also as a comma list)', async () => {
    expect(updates((await plan(['--sync-write-only', 'partners.acme.example'])).out)).toEqual([
      'partners.acme.example: excludeParams password',
    ]);
    const combined = await plan(['--sync-write-only', 'exclude_params,*.orbit.example', '--sync-write-only', 'eu.*']);
    expect(updates(combined.out)).toEqual([
      'app.orbit.example: excludeParams',
      'changelog.orbit.example: excludeParams',
      'docs.orbit.example: excludeParams',
      'eu.orbit.example: excludeParams',
      'investors.orbit.example: excludeParams',
      'status.orbit.example: excludeParams',
      'us.orbit.example: excludeParams',
    ]);
  });

  it('refuses a glob that matches no configured website, and a word that is neither field nor domain', async () => {
    const typo = await plan(['--sync-write-only', 'shop.acme.exmaple']);
    expect(typo.code).toBe(1);
    expect(typo.err).toContain('--sync-write-only shop.acme.exmaple matches no website in the configuration');
    const bad = await plan(['--sync-write-only', 'exclude params']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--sync-write-only "exclude params": neither a field');
  });

  it('needs only the password variables of the sites whose password it sends', async () => {
    const withoutInvestors = { ...PASSWORDS, SITESYNC_ORBIT_INVESTORS_STATS_PASSWORD: undefined };
    const params = await plan(['--sync-write-only', 'exclude_params'], {
      ...withoutInvestors,
      SITESYNC_ACME_PARTNERS_STATS_PASSWORD: undefined,
    });
    expect(params.code).toBe(3); // every site: over limits.max_change_percent, but planned
    expect(updates(params.out)).toHaveLength(22);

    const partners = await plan(['--sync-write-only', 'partners.acme.example'], withoutInvestors);
    expect(partners.code).toBe(0);
    expect(updates(partners.out)).toEqual(['partners.acme.example: excludeParams password']);

    const passwords = await plan(['--sync-write-only', 'password'], withoutInvestors);
    expect(passwords.code).toBe(1);
    expect(passwords.err).toMatch(
      /realistic\.yaml:\d+:\d+: investors\.orbit\.example: the password uses environment variable SITESYNC_ORBIT_INVESTORS_STATS_PASSWORD, which is not set\n/,
    );
    expect(passwords.err).not.toMatch(/partners\.acme\.example: the password/);
    expect(cli.ws.outputs.join('')).not.toContain('partners-pw-4711-long');
  });
});
