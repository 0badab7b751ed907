import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../src/config/files.js';
import { formatProblem, loadConfig, loadConfigText } from '../../src/config/index.js';
import { loadText, tempConfigDir } from './helpers.js';

const ISSUE_EXAMPLE = `# yaml-language-server: $schema=../schemas/websites.schema.json
version: 1
prune: false
manage:
  include: ["*"]
  exclude: ["*.staging.example.com"]
protect: ["shop.example.com", "*.example.org"]
limits:
  max_deletes: 3
  max_change_percent: 30
defaults:
  privacy: private
  email: false
  exclude_bots: true
  exclude_params: [fbclid, gclid]
websites:
  - domain: example.com
    privacy: public
    email: true
    exclude_ips: [203.0.113.7, 198.51.100.0/24, "2001:DB8::/32"]
    favorite: true
  - domain: shop.example.com
    privacy: password
    password: \${SITESYNC_SHOP_STATS_PASSWORD}
    ignore_changes: [email]
`;

describe('loadConfig', () => {
  it('loads text exactly as it loads the same file (loadConfigText)', async () => {
    const env = { SITESYNC_SHOP_STATS_PASSWORD: 'correct horse' };
    const broken = `${ISSUE_EXAMPLE}  - domain: shop.example.com\n    privacy: secret\n`;
    for (const text of [ISSUE_EXAMPLE, broken]) {
      const cwd = tempConfigDir({ 'sites.yaml': text });
      const fromFile = await loadConfig({ files: ['sites.yaml'], cwd, env });
      const fromText = loadConfigText(text, 'sites.yaml', env);
      expect(fromText).toEqual(fromFile);
      expect(fromText.state?.websites[1]?.password?.reveal()).toBe(fromFile.state?.websites[1]?.password?.reveal());
    }
    expect(loadConfigText(broken, 'sites.yaml', env).errors.map(formatProblem)).toContain(
      'sites.yaml:27:14: websites[2].privacy must be one of public, private, password',
    );
  });

  it('resolves the example of the issue into canonical desired state', () => {
    const result = loadText(ISSUE_EXAMPLE, { SITESYNC_SHOP_STATS_PASSWORD: 'correct horse' });
    expect(result.lines).toEqual([]);
    const state = result.state!;
    expect(state.policy).toEqual({
      prune: false,
      manage: { include: ['*'], exclude: ['*.staging.example.com'] },
      protect: ['shop.example.com', '*.example.org'],
      limits: { maxDeletes: 3, maxChangePercent: 30 },
    });
    expect(state.files).toEqual(['websites.yaml']);
    expect(state.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(state.websites.map(({ password, ...site }) => site)).toEqual([
      {
        domain: 'example.com',
        settings: {
          privacy: 'public',
          email: true,
          excludeBots: true,
          excludeParams: ['fbclid', 'gclid'],
          excludeIps: ['198.51.100.0/24', '2001:db8::/32', '203.0.113.7'],
          favorite: true,
        },
        ignoreChanges: [],
        source: { file: 'websites.yaml', line: 17, column: 5 },
        raw: {
          domain: 'example.com',
          privacy: 'public',
          email: true,
          exclude_bots: true,
          exclude_params: ['fbclid', 'gclid'],
          exclude_ips: ['203.0.113.7', '198.51.100.0/24', '2001:DB8::/32'],
          favorite: true,
        },
      },
      {
        domain: 'shop.example.com',
        settings: {
          privacy: 'password',
          email: false,
          excludeBots: true,
          excludeParams: ['fbclid', 'gclid'],
          excludeIps: [],
          favorite: false,
        },
        ignoreChanges: ['email'],
        source: { file: 'websites.yaml', line: 22, column: 5 },
        raw: {
          domain: 'shop.example.com',
          privacy: 'password',
          email: false,
          exclude_bots: true,
          exclude_params: ['fbclid', 'gclid'],
          ignore_changes: ['email'],
        },
      },
    ]);
    expect(state.websites[0]!.password).toBeUndefined();
    expect(state.websites[1]!.password?.reveal()).toBe('correct horse');
  });

  it('never shows a resolved password in JSON or inspect output', () => {
    const state = loadText(ISSUE_EXAMPLE, { SITESYNC_SHOP_STATS_PASSWORD: 'correct horse' }).state!;
    expect(JSON.stringify(state)).not.toContain('correct horse');
    expect(inspect(state, { depth: 10 })).not.toContain('correct horse');
  });

  it("applies the service's documented defaults to fields left out everywhere", () => {
    const state = loadText('version: 1\nwebsites:\n  - domain: example.com\n').state!;
    expect(state.websites[0]!.settings).toEqual({
      privacy: 'private',
      email: false,
      excludeBots: true,
      excludeParams: [],
      excludeIps: [],
      favorite: false,
    });
    expect(state.policy.limits).toEqual({ maxDeletes: 3, maxChangePercent: 30 });
  });

  it('takes file defaults, lets a site override them, and unions ignore_changes', () => {
    const state = loadText(`version: 1
defaults:
  email: true
  exclude_ips: [10.0.0.1]
  ignore_changes: [favorite]
websites:
  - domain: a.example.com
  - domain: b.example.com
    email: false
    exclude_ips: []
    ignore_changes: [privacy]
`).state!;
    const [a, b] = state.websites;
    expect([a!.settings.email, a!.settings.excludeIps, a!.ignoreChanges]).toEqual([true, ['10.0.0.1'], ['favorite']]);
    expect([b!.settings.email, b!.settings.excludeIps, b!.ignoreChanges]).toEqual([false, [], ['privacy', 'favorite']]);
  });

  it("keeps each site's written values (raw) as written, defaults first, never a password reference", () => {
    const state = loadText(
      `version: 1
defaults:
  email: true
  password: \${SITESYNC_SHARED_STATS_PASSWORD}
  exclude_ips: [10.0.0.1]
websites:
  - domain: a.example.com
    favorite: true
    email: false
  - domain: b.example.com
    privacy: password
    password: \${SITESYNC_B_STATS_PASSWORD}
    exclude_ips: [10.0.0.2]
`,
      { SITESYNC_SHARED_STATS_PASSWORD: 'shared horse battery', SITESYNC_B_STATS_PASSWORD: 'b horse battery staple' },
    ).state!;
    const written = state.websites.map((site) => Object.entries(site.raw!));
    expect(written).toEqual([
      [
        ['email', false],
        ['exclude_ips', ['10.0.0.1']],
        ['domain', 'a.example.com'],
        ['favorite', true],
      ],
      [
        ['email', true],
        ['exclude_ips', ['10.0.0.2']],
        ['domain', 'b.example.com'],
        ['privacy', 'password'],
      ],
    ]);
  });

  it('lists the websites in domain order (UTF-16 code units), whatever order they are written in', () => {
    const written = ['site-10.example.com', 'b.example.com', 'site-2.example.com', 'B-2.example.com', 'a.example.com'];
    const text = `version: 1\nwebsites:\n${written.map((domain) => `  - domain: ${domain}\n`).join('')}`;
    const { state, lines } = loadText(text);
    expect(state!.websites.map((site) => [site.domain, site.source!.line])).toEqual([
      ['a.example.com', 7],
      ['b-2.example.com', 6],
      ['b.example.com', 4],
      ['site-10.example.com', 3],
      ['site-2.example.com', 5],
    ]);
    expect(lines).toEqual([
      'websites.yaml:6:13: warning: websites[3].domain "B-2.example.com" is read as b-2.example.com, as the service stores it; write b-2.example.com',
    ]);
  });

  it('accepts privacy codes 0/1/2 and multi-line strings for lists (trimmed, de-duplicated, sorted)', () => {
    const state = loadText(
      `version: 1
websites:
  - domain: a.example.com
    privacy: 0
    exclude_params: "  utm_source \\n gclid\\n\\nutm_source"
  - domain: b.example.com
    privacy: 2
    password: \${SITESYNC_PW}
    exclude_ips: |
      198.51.100.7
      2001:DB8::1
`,
      { SITESYNC_PW: 'secret-pw' },
    ).state!;
    expect(state.websites.map((site) => site.settings.privacy)).toEqual(['public', 'password']);
    expect(state.websites[0]!.settings.excludeParams).toEqual(['gclid', 'utm_source']);
    expect(state.websites[1]!.settings.excludeIps).toEqual(['198.51.100.7', '2001:db8::1']);
  });

  it('supports anchors, aliases and merge keys, with x- extension fields to hold anchors', () => {
    const state = loadText(`version: 1
x-shop: &shop { privacy: public, email: true }
x-params: &params [ref, fbclid]
websites:
  - domain: a.example.com
    <<: *shop
  - domain: b.example.com
    exclude_params: *params
`).state!;
    expect(state.websites.map((site) => [site.domain, site.settings.privacy, site.settings.excludeParams])).toEqual([
      ['a.example.com', 'public', []],
      ['b.example.com', 'private', ['fbclid', 'ref']],
    ]);
    expect(state.websites[0]!.settings.email).toBe(true);
  });

  it(`reads api.url without a trailing slash, and never resolves \${VAR} in it (issue 33)`, () => {
    const state = loadText('version: 1\napi:\n  url: https://stats.example.com/\nwebsites: []\n').state!;
    expect(state.apiUrl).toBe('https://stats.example.com');
    expect(loadText('version: 1\nwebsites: []\n').state!.apiUrl).toBeUndefined();
    const reference = loadText(`version: 1\napi:\n  url: https://\${HOST}/\nwebsites: []\n`, {
      HOST: 'stats.example.com',
    });
    expect(reference.lines).toEqual([expect.stringContaining(`websites.yaml:3:8: api.url holds \${…}`)]);
  });

  it('keeps positions right in CRLF files and files with a BOM', () => {
    const text = 'version: 1\nwebsites:\n  - domain: example.com\n    privacy: nope\n';
    const expected = ['websites.yaml:4:14: websites[0].privacy must be one of public, private, password'];
    expect(loadText(text.replace(/\n/g, '\r\n')).lines).toEqual(expected);
    expect(loadText(`\uFEFF${text}`).lines).toEqual(expected);
    expect(loadText(`\uFEFFversion: 2\nwebsites: []\n`).lines).toEqual(['websites.yaml:1:10: version must be 1']);
  });

  it('refuses a literal password without repeating it', () => {
    const result = loadText(
      'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: hunter22\n',
    );
    expect(result.errors).toHaveLength(1);
    expect(result.lines.join('\n')).not.toContain('hunter22');
  });
});

describe('loadConfig files', () => {
  it('reads websites.yaml in the working directory by default, and says so when it is missing', async () => {
    const cwd = tempConfigDir();
    const result = await loadConfig({ files: [], cwd, env: {} });
    expect(result.errors.map(formatProblem)).toEqual(['websites.yaml: no such file or directory']);
  });

  it('reads every .yaml / .yml of a directory in sorted order and merges their websites', async () => {
    const cwd = tempConfigDir({
      'conf/b.yml': 'version: 1\nwebsites:\n  - domain: b.example.com\n',
      'conf/a.yaml': 'version: 1\ndefaults:\n  email: true\nwebsites:\n  - domain: a.example.com\n',
      'conf/notes.txt': 'not yaml',
    });
    const state = (await loadConfig({ files: ['conf'], cwd, env: {} })).state!;
    expect(state.files).toEqual([join('conf', 'a.yaml'), join('conf', 'b.yml')]);
    expect(state.websites.map((site) => [site.domain, site.settings.email])).toEqual([
      ['a.example.com', true],
      ['b.example.com', true],
    ]);
  });

  it('hands the texts read to onRead before parsing them (an early listing scans api.url), and only when all were read', async () => {
    const broken = 'version: 1\napi:\n  url: https://stats.example.com\nwebsites: [\n';
    const cwd = tempConfigDir({ 'conf/a.yaml': broken, 'conf/b.yaml': 'version: 1\n' });
    const seen: string[][] = [];
    const result = await loadConfig({ files: ['conf'], cwd, env: {}, onRead: (texts) => seen.push([...texts]) });
    expect(result.errors.length).toBeGreaterThan(0);
    expect(seen).toEqual([[broken, 'version: 1\n']]);
    seen.length = 0;
    await loadConfig({ files: ['conf', 'missing.yaml'], cwd, env: {}, onRead: (texts) => seen.push([...texts]) });
    expect(seen).toEqual([]);
  });

  it('reports an empty directory, and several missing files at once', async () => {
    const cwd = tempConfigDir({ 'empty/.keep': '' });
    const result = await loadConfig({ files: ['empty', 'x.yaml', 'y.yaml'], cwd, env: {} });
    expect(result.errors.map(formatProblem)).toEqual([
      'empty: the directory has no .yaml or .yml files',
      'x.yaml: no such file or directory',
      'y.yaml: no such file or directory',
    ]);
  });

  it('refuses files over the size limit and files that are not UTF-8', async () => {
    const cwd = tempConfigDir({
      'big.yaml': `version: 1\n#${'x'.repeat(MAX_FILE_BYTES)}\n`,
      'latin1.yaml': new Uint8Array([0x76, 0x3a, 0x20, 0xe9, 0x0a]),
    });
    const result = await loadConfig({ files: ['big.yaml', 'latin1.yaml'], cwd, env: {} });
    expect(result.errors.map(formatProblem)).toEqual([
      `big.yaml: the input is larger than the limit of ${MAX_FILE_BYTES} bytes`,
      'latin1.yaml: the file is not valid UTF-8 text',
    ]);
  });

  it('bounds alias expansion quickly (no billion laughs)', () => {
    const text = readFileSync(new URL('../fixtures/config/invalid-billion-laughs.yaml', import.meta.url), 'utf8');
    // Bounded by count, not by time (speed is a benchmark's job): one error instead of an expansion.
    const result = loadText(text.replace(/\[x, /, '[x, x, x, x, x, x, '));
    expect(result.errors).toHaveLength(1);
  });
});

describe('configuration digest', () => {
  const one = `version: 1
defaults:
  email: true
websites:
  - domain: b.example.com
  - domain: a.example.com
    privacy: password
    password: \${SITESYNC_PW}
`;
  const digest = async (
    files: Record<string, string>,
    env: Record<string, string> = { SITESYNC_PW: 'first' },
  ): Promise<string> => {
    const cwd = tempConfigDir(files);
    return (await loadConfig({ files: Object.keys(files), cwd, env })).state!.digest;
  };

  it('ignores layout, order and password values', async () => {
    const base = await digest({ 'w.yaml': one });
    const reordered = `version: 1
websites:
  - domain: a.example.com
    password: \${SITESYNC_OTHER}
    privacy: 2
    email: true
  - domain: b.example.com
    email: true
`;
    expect(await digest({ 'x.yaml': reordered }, { SITESYNC_OTHER: 'second' })).toBe(base);
    const split = {
      '1.yaml': 'version: 1\ndefaults:\n  email: true\nwebsites:\n  - domain: b.example.com\n',
      '2.yaml': `version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: \${SITESYNC_PW}\n`,
    };
    expect(await digest(split)).toBe(base);
  });

  it('changes when a setting or the policy changes', async () => {
    const base = await digest({ 'w.yaml': one });
    expect(await digest({ 'w.yaml': one.replace('email: true', 'email: false') })).not.toBe(base);
    expect(await digest({ 'w.yaml': `${one.replace('version: 1\n', 'version: 1\nprune: true\n')}` })).not.toBe(base);
  });

  it("changes when an ignore rule's until or reason changes", async () => {
    const rule = (extra: string) =>
      one.replace('  - domain: b.example.com\n', `  - domain: b.example.com\n    ignore_changes: ${extra}\n`);
    const plain = await digest({ 'w.yaml': rule('[email]') });
    const until = await digest({ 'w.yaml': rule('[{ field: email, until: 2026-06-30 }]') });
    expect(until).not.toBe(plain);
    expect(await digest({ 'w.yaml': rule('[{ field: email, until: 2026-07-31 }]') })).not.toBe(until);
    expect(await digest({ 'w.yaml': rule('[{ field: email, until: 2026-06-30, reason: x }]') })).not.toBe(until);
  });
});
