/**
 * exportConfig: live websites → websites.yaml text. Checked as literal text,
 * and by loading it back: the loaded settings equal the live ones.
 */
import { describe, expect, it } from 'vitest';
import { exportConfig, exportConfigWithWarnings, passwordVariable } from '../../src/config/export.js';
import type { LiveWebsite, WebsiteSettings } from '../../src/model/website.js';
import { loadText } from './helpers.js';

function live(id: number, domain: string, settings: Partial<WebsiteSettings>): LiveWebsite {
  return { id, domain, settings, hasPassword: settings.privacy === 'password' };
}

const base: WebsiteSettings = {
  privacy: 'public',
  email: false,
  excludeBots: true,
  excludeParams: ['fbclid'],
  excludeIps: [],
  favorite: false,
};

const LIVE: LiveWebsite[] = [
  live(3, 'shop.example.com', { ...base, privacy: 'password', excludeBots: false }),
  live(1, 'b.example.com', { ...base, email: true, excludeIps: ['1.2.3.4', '2001:db8::/32'] }),
  live(2, 'a.example.com', { ...base, favorite: true }),
  // A real install does not return exclude_params: the field is left out for this site.
  live(4, 'c.example.com', { privacy: 'private', email: false, excludeBots: true, excludeIps: [], favorite: false }),
];

describe('exportConfig', () => {
  it('writes canonical YAML: modeline, sorted, shared values in defaults, password references', () => {
    expect(exportConfig(LIVE, { header: 'Exported from https://stats.example.com' })).toBe(`\
# yaml-language-server: $schema=./node_modules/sitesync/schemas/websites.schema.json
# Exported from https://stats.example.com
# Not exported: exclude_params (the server does not return it): set it by hand.

version: 1
defaults:
  privacy: public
  exclude_params: [fbclid]
websites:
  - domain: a.example.com
    favorite: true
  - domain: b.example.com
    email: true
    exclude_ips: [1.2.3.4, 2001:db8::/32]
  - domain: c.example.com
    privacy: private
  - domain: shop.example.com
    privacy: password
    password: \${SITESYNC_PASSWORD_SHOP_EXAMPLE_COM} # the service never reveals passwords: set this variable
    exclude_bots: false
`);
  });

  it('loads back to the live settings when the password variables are set', () => {
    const result = loadText(exportConfig(LIVE), { SITESYNC_PASSWORD_SHOP_EXAMPLE_COM: 'from-the-vault' });
    expect(result.lines).toEqual([]);
    const byDomain = new Map(result.state!.websites.map((site) => [site.domain, site]));
    for (const site of LIVE) {
      const desired = byDomain.get(site.domain)!;
      for (const [field, value] of Object.entries(site.settings)) {
        expect([site.domain, field, desired.settings[field as keyof WebsiteSettings]]).toEqual([
          site.domain,
          field,
          value,
        ]);
      }
    }
    expect(byDomain.get('shop.example.com')!.password?.reveal()).toBe('from-the-vault');
    expect(result.state!.websites).toHaveLength(LIVE.length);
  });

  it('canonicalises live domains and keeps password variable names unique', () => {
    const text = exportConfig([
      live(1, 'WWW.A-B.example', { privacy: 'password' }),
      live(2, 'a.b.example', { privacy: 'password' }),
    ]);
    expect(text).toContain('defaults:\n  privacy: password\n');
    expect(text).toContain(`  - domain: a-b.example\n    password: \${SITESYNC_PASSWORD_A_B_EXAMPLE} #`);
    expect(text).toContain(`  - domain: a.b.example\n    password: \${SITESYNC_PASSWORD_A_B_EXAMPLE_2} #`);
  });

  it('exports a domain the service holds twice once, the oldest (lowest id), with a warning', () => {
    const result = exportConfigWithWarnings([
      live(2, 'example.com.', { ...base, favorite: true }),
      live(1, 'Example.com', { ...base, email: true }),
    ]);
    expect(result.warnings).toEqual([
      'example.com: the service holds this domain more than once; exported the oldest (id 1), not id 2',
    ]);
    const sites = loadText(result.text).state!.websites;
    expect(sites.map((site) => [site.domain, site.settings.email, site.settings.favorite])).toEqual([
      ['example.com', true, false],
    ]);
  });

  it('writes an empty list for an account without websites, and it loads', () => {
    const text = exportConfig([]);
    expect(text.endsWith('version: 1\nwebsites: []\n')).toBe(true);
    expect(loadText(text).state!.websites).toEqual([]);
  });

  it('leaves exclude_ips unmanaged where validate refuses an entry: a comment with the live list, a warning', () => {
    const settings = { ...base, excludeIps: ['10.0.0.1', '192.168.001.1'] };
    const result = exportConfigWithWarnings([
      live(1, 'a.example.com', { ...base, excludeIps: ['10.0.0.1', '10.0.0.300', 'fe80::1%eth0'] }),
      live(2, 'b.example.com', settings),
      live(3, 'c.example.com', { ...base, excludeIps: ['10.0.0.1'] }),
    ]);
    expect(result.text).toContain(
      '  - domain: a.example.com # exclude_ips not managed: live [10.0.0.1, 10.0.0.300, fe80::1%eth0], where "10.0.0.300", "fe80::1%eth0" are not IP addresses or CIDR ranges (the service accepted them; validate does not): correct them, then remove ignore_changes\n    ignore_changes: [exclude_ips]\n',
    );
    expect(result.text).toContain('  - domain: c.example.com\n    exclude_ips: [10.0.0.1]\n');
    expect(result.warnings).toEqual([
      'a.example.com: exclude_ips "10.0.0.300", "fe80::1%eth0" are not IP addresses or CIDR ranges; exclude_ips is written as ignore_changes (not managed), the live list in a comment',
      'b.example.com: exclude_ips "192.168.001.1" is not an IP address or CIDR range; exclude_ips is written as ignore_changes (not managed), the live list in a comment',
    ]);
    expect(result.incomplete).toEqual(['a.example.com', 'b.example.com']);
    const loaded = loadText(result.text);
    expect(loaded.lines).toEqual([]);
    expect(loaded.state!.websites.map((site) => [site.domain, site.ignoreChanges])).toEqual([
      ['a.example.com', ['excludeIps']],
      ['b.example.com', ['excludeIps']],
      ['c.example.com', []],
    ]);
  });

  it('warns about fields the server does not return, and nothing else for a faithful export', () => {
    expect(exportConfigWithWarnings(LIVE).warnings).toEqual([
      'the server does not return exclude_params: not exported; set it by hand where needed',
    ]);
    expect(exportConfigWithWarnings(LIVE.slice(0, 3))).toMatchObject({ warnings: [] });
    expect(exportConfigWithWarnings(LIVE.slice(0, 3)).text).not.toContain('Not exported');
  });

  it('names password variables after the domain', () => {
    expect(passwordVariable('xn--bcher-kva.example')).toBe('SITESYNC_PASSWORD_XN__BCHER_KVA_EXAMPLE');
  });
});
