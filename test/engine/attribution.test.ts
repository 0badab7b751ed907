/**
 * Attribution's pure parts: a commit's page from the remote (GitHub, GitLab,
 * never credentials), the entry and defaults line ranges it blames, and the
 * Markdown link of an origin (escaped: authors and subjects are anyone's text).
 */
import { describe, expect, it } from 'vitest';
import { defaultsRanges, entryRanges, keysIn } from '../../src/engine/blame.js';
import { commitUrl } from '../../src/engine/commit-url.js';
import type { Plan } from '../../src/model/plan.js';
import { renderMarkdown } from '../../src/render/markdown.js';

const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

describe('commitUrl', () => {
  it.each([
    ['git@github.com:acme/websites.git', `https://github.com/acme/websites/commit/${SHA}`],
    ['https://github.com/acme/websites', `https://github.com/acme/websites/commit/${SHA}`],
    [
      'https://x-access-token:ghs_0123456789abcdef@github.com/acme/websites.git',
      `https://github.com/acme/websites/commit/${SHA}`,
    ],
    ['ssh://git@gitlab.com/group/sub/websites.git', `https://gitlab.com/group/sub/websites/-/commit/${SHA}`],
    [
      'https://gitlab-ci-token:glcbt-0123456789abcdef@gitlab.example.com/ops/websites.git',
      `https://gitlab.example.com/ops/websites/-/commit/${SHA}`,
    ],
    ['file:///srv/git/websites.git', undefined],
    ['https://git.example.com/acme/websites.git', undefined],
    ['github.com:../../etc', undefined],
  ])('%s → %s', (remote, url) => {
    expect(commitUrl(remote, SHA)).toBe(url);
  });
});

const FILE = `version: 1
defaults:
  exclude_bots: true
  exclude_ips:
    - 10.0.0.1
websites:
  # shop
  - domain: a.example
    privacy: public

  - domain: b.example
    exclude_ips: [10.0.0.2]
  # the last one
  - domain: c.example
policies:
  - name: x
`;

describe('line ranges', () => {
  it('gives each entry its lines, blank and comment lines at the end going to what follows', () => {
    const rangeOf = entryRanges(FILE.split('\n'), [14, 8, 11]);
    expect([8, 11, 14].map(rangeOf)).toEqual([
      { from: 8, to: 9 },
      { from: 11, to: 12 },
      { from: 14, to: 14 },
    ]);
    expect([...keysIn(FILE.split('\n'), { from: 11, to: 12 })]).toEqual(['domain', 'exclude_ips']);
  });

  it('gives each key of defaults its lines', () => {
    expect([...defaultsRanges(FILE.split('\n'))]).toEqual([
      ['exclude_bots', { from: 3, to: 3 }],
      ['exclude_ips', { from: 4, to: 5 }],
    ]);
  });
});

describe('the Markdown link of an origin', () => {
  it('links the commit and escapes the author and subject', () => {
    const plan: Plan = {
      changes: [{ action: 'create', domain: 'a.example', id: null, after: {} as never, fields: [] }],
      notes: [],
      safety: [],
      summary: {
        create: 1,
        update: 0,
        delete: 0,
        unchanged: 0,
        outOfScope: 0,
        kept: 0,
        unverifiable: 0,
        ignoredDrift: 0,
      },
    };
    const origin = {
      commit: SHA,
      author: 'Eve <script>',
      date: '2026-11-26T10:00:00+00:00',
      subject: 'x </summary> *y*',
      url: `https://github.com/acme/websites/commit/${SHA}`,
    };
    const text = renderMarkdown(plan, { attribution: { origins: new Map([['a.example', origin]]) } });
    expect(text).toContain(
      `<summary><code>+ a.example will be created</code> · from <a href="https://github.com/acme/websites/commit/${SHA}"><code>a1b2c3d</code></a> Eve &lt;script&gt;, 2026-11-26: x &lt;/summary&gt; *y*</summary>`,
    );
  });
});
