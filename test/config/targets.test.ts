/** `targets:` in websites.yaml (docs/config.md, Targets): checked with positions, and each target's own settings. */
import { describe, expect, it } from 'vitest';
import { forTarget } from '../../src/config/targets.js';
import { selectTargets } from '../../src/engine/targets.js';
import { loadText } from './helpers.js';

const head = 'version: 1\ntargets:\n';

describe('targets', () => {
  it('resolves each target: URL, key source, files, own settings', () => {
    const { state, errors } = loadText(
      `${head}  - name: prod\n    url: https://stats.example.com\n    key_env: SITESYNC_PROD_KEY\n    files: [prod.yaml]\n    rate_limit: 30\n    limits: { max_deletes: 9 }\n    protect: [Keep.example]\n  - name: staging\n    url: https://staging.example.com\n    key_file: keys/staging.key\n`,
    );
    expect(errors).toEqual([]);
    expect(state?.targets).toEqual([
      {
        name: 'prod',
        url: 'https://stats.example.com',
        key: { env: 'SITESYNC_PROD_KEY' },
        files: ['prod.yaml'],
        declaredIn: 'websites.yaml',
        rateLimit: 30,
        limits: { maxDeletes: 9 },
        protect: ['keep.example'],
      },
      {
        name: 'staging',
        url: 'https://staging.example.com',
        key: { file: 'keys/staging.key' },
        files: [],
        declaredIn: 'websites.yaml',
      },
    ]);
  });

  it('gives a target its own limits and protection, and a digest that changes with them', () => {
    const { state } = loadText(
      `${head}  - name: a\n    url: https://a.example\n    key_env: SITESYNC_A\nlimits: { max_change_percent: 50 }\n`,
    );
    const target = state!.targets![0]!;
    const plain = forTarget(state!, target);
    const own = forTarget(state!, { ...target, limits: { maxDeletes: 0 }, protect: ['x.example'] });
    expect(own.policy.limits).toEqual({ maxDeletes: 0, maxChangePercent: 50 });
    expect(own.policy.protect).toEqual(['x.example']);
    expect(own.apiUrl).toBe('https://a.example');
    expect(own.digest).not.toBe(plain.digest);
    expect(own.targets).toBeUndefined();
  });

  it("takes unlisted_is_drift from a target entry, over the files' setting, in the digest only when on", () => {
    const { state, errors } = loadText(
      `${head}  - name: a\n    url: https://a.example\n    key_env: SITESYNC_A\n    unlisted_is_drift: true\n  - name: b\n    url: https://b.example\n    key_env: SITESYNC_B\n    unlisted_is_drift: false\n  - name: c\n    url: https://c.example\n    key_env: SITESYNC_C\n`,
    );
    expect(errors).toEqual([]);
    const [a, b, c] = state!.targets!;
    expect(a?.unlistedIsDrift).toBe(true);
    expect(b?.unlistedIsDrift).toBe(false);
    expect(c?.unlistedIsDrift).toBeUndefined();
    const on = forTarget(state!, a!);
    const off = forTarget(state!, b!);
    expect(on.policy.unlistedIsDrift).toBe(true);
    expect(off.policy.unlistedIsDrift).toBeUndefined();
    expect(on.digest).not.toBe(off.digest);
    // Off in the entry, on in the files: the entry wins, and the digest is that of off.
    const filesOn = { ...state!, policy: { ...state!.policy, unlistedIsDrift: true } };
    expect(forTarget(filesOn, b!).policy.unlistedIsDrift).toBeUndefined();
    expect(forTarget(filesOn, b!).digest).toBe(off.digest);
    expect(forTarget(filesOn, c!).policy.unlistedIsDrift).toBe(true);
    const wrong = loadText(
      `${head}  - name: a\n    url: https://a.example\n    key_env: SITESYNC_A\n    unlisted_is_drift: yes\n`,
    );
    expect(wrong.errors.map((problem) => problem.path)).toEqual(['targets[0].unlisted_is_drift']);
  });

  it('names each mistake at its place: a repeated name, no key source, both key sources, a bad name', () => {
    const { lines } = loadText(
      `${head}  - name: a\n    url: https://a.example\n  - name: a\n    url: https://b.example\n    key_env: SITESYNC_B\n    key_file: b.key\n  - name: Bad Name\n    url: https://c.example\n    key_env: SITESYNC_C\n`,
    );
    expect(lines).toEqual([
      'websites.yaml:3:5: targets[0] needs key_env (an environment variable name) or key_file (a file holding the key); never the key itself',
      'websites.yaml:5:5: targets[1] gives both key_env and key_file: say where the key comes from once',
      'websites.yaml:5:11: targets[1].name "a" is already the name of another target',
      'websites.yaml:9:11: targets[2].name must match pattern "^[a-z0-9][a-z0-9_-]*$"',
    ]);
  });

  it('refuses an API key written in a target', () => {
    const { lines } = loadText(
      `${head}  - name: a\n    url: https://a.example\n    api_key: secret-0123456789abcdef\n`,
    );
    expect(lines.join('\n')).toMatch(/targets\[0\]/);
    expect(lines.join('\n')).not.toContain('secret-0123456789abcdef');
  });

  it('selects targets by name and glob, in declaration order, and refuses a pattern matching none', () => {
    const { state } = loadText(
      `${head}  - name: prod-eu\n    url: https://a.example\n    key_env: SITESYNC_A\n  - name: staging\n    url: https://b.example\n    key_env: SITESYNC_B\n  - name: prod-us\n    url: https://c.example\n    key_env: SITESYNC_C\n`,
    );
    const targets = state!.targets!;
    expect(selectTargets(targets, []).map((t) => t.name)).toEqual(['prod-eu', 'staging', 'prod-us']);
    expect(selectTargets(targets, ['prod-*']).map((t) => t.name)).toEqual(['prod-eu', 'prod-us']);
    expect(() => selectTargets(targets, ['staging', 'qa'])).toThrow('--target qa matches no target');
  });
});

describe('did you mean, for near misses of keys and values (issue 22)', () => {
  it('key_flie under a target suggests key_file, not "API keys never go in this file"', () => {
    const { errors } = loadText(`${head}  - name: a\n    url: https://a.example\n    key_flie: keys/a.key\n`);
    expect(errors.map((error) => error.message)).toContain('is not a known field; did you mean key_file?');
  });

  it('privacy: pasword suggests password', () => {
    const { errors } = loadText('version: 1\nwebsites:\n  - domain: a.example\n    privacy: pasword\n');
    expect(errors.map((error) => error.message)).toEqual([
      'must be one of public, private, password; did you mean password?',
    ]);
  });
});
