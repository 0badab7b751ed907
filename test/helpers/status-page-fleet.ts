/**
 * A small fleet for the status page's tests: two reference servers and a git
 * repository whose `websites.yaml` declares three targets, with the baseline
 * tag on the configuration as applied. Then, through the API and the
 * configuration, every class a page shows:
 *
 * - `shop`: a.example in conflict (the configuration now excludes utm_source,
 *   the live site excludes ref, the baseline excluded nothing), b.example in
 *   drift (made public through the API), c.example pending (added to the
 *   configuration), d.example in sync, and two hostile live domains nobody
 *   configured (unmanaged): a right-to-left override that reads as
 *   `evil.example` when printed raw, and one holding HTML;
 * - `blog`: three sites, all in sync;
 * - `broken`: the blog's server with a key it does not know: every check fails (401).
 */

import { type GitRepo, gitRepo } from './git-repo.js';
import { client, insertWebsite, STORED_DEFAULTS, startTestServer, type TestServer } from './server.js';
import { allowedOrigins, keyVariable } from './targets.js';

/** Reads as `evil.example` when shown raw. */
export const RLO_DOMAIN = '\u202Eelpmaxe.live';
export const HTML_DOMAIN = '<img src=x>.example';
export const WRONG_KEY = 'wrong-key-0123456789abcdef';

/** The targets' URLs are literal (a URL never comes from a variable) and their origins pinned in the environment. */
const root = (shop: TestServer, blog: TestServer) => `version: 1
targets:
  - { name: shop, url: "${shop.url}", key_env: ${keyVariable('shop')}, files: [shop.yaml] }
  - { name: blog, url: "${blog.url}", key_env: ${keyVariable('blog')}, files: [blog.yaml] }
  - { name: broken, url: "${blog.url}", key_env: ${keyVariable('broken')}, files: [blog.yaml] }
defaults:
  privacy: private
`;
const SHOP_AS_APPLIED = 'version: 1\nwebsites:\n  - domain: a.example\n  - domain: b.example\n  - domain: d.example\n';
const SHOP_NOW =
  'version: 1\nwebsites:\n  - domain: a.example\n    exclude_params: [utm_source]\n  - domain: b.example\n  - domain: c.example\n  - domain: d.example\n';
const BLOG =
  'version: 1\nwebsites:\n  - domain: one.blog.example\n  - domain: two.blog.example\n  - domain: three.blog.example\n';

export interface PageFleet {
  repo: GitRepo;
  shop: TestServer;
  blog: TestServer;
  /** What `sitesync watch` needs in its environment (the pinned origins and the keys). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function pageFleet(): Promise<PageFleet> {
  const [shop, blog] = await Promise.all([startTestServer(), startTestServer()]);
  const ids: Record<string, number> = {};
  for (const domain of ['a.example', 'b.example', 'd.example'])
    ids[domain] = await insertWebsite(shop, domain, { values: STORED_DEFAULTS });
  for (const domain of [RLO_DOMAIN, HTML_DOMAIN]) await insertWebsite(shop, domain, { values: STORED_DEFAULTS });
  for (const domain of ['one.blog.example', 'two.blog.example', 'three.blog.example'])
    await insertWebsite(blog, domain, { values: STORED_DEFAULTS });

  const repo = gitRepo();
  repo.commit('as applied', { 'websites.yaml': root(shop, blog), 'shop.yaml': SHOP_AS_APPLIED, 'blog.yaml': BLOG });
  repo.git('tag', 'sitesync-applied');
  repo.commit('add c.example, exclude utm_source on a.example', { 'shop.yaml': SHOP_NOW });

  const api = client(shop);
  await api('PATCH', `/api/v1/websites/${ids['a.example']}`, { form: { exclude_params: 'ref' } });
  await api('PATCH', `/api/v1/websites/${ids['b.example']}`, { form: { privacy: '0' } });
  return {
    repo,
    shop,
    blog,
    env: {
      SITESYNC_ALLOWED_ORIGINS: allowedOrigins([shop, blog]),
      [keyVariable('shop')]: shop.key,
      [keyVariable('blog')]: blog.key,
      [keyVariable('broken')]: WRONG_KEY,
    },
    close: async () => {
      await Promise.all([shop.close(), blog.close()]);
    },
  };
}
