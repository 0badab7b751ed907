import { afterEach, describe, expect, it } from 'vitest';
import { Secret } from '../../src/model/secret.js';
import { insertWebsite } from '../helpers/server.js';
import { desired, MODES, type Setup, setup } from './support.js';

describe.each(MODES)('writes against the %s server', (mode) => {
  const quirks = mode === 'phpanalytics-v31';
  let env: Setup;
  afterEach(() => env.close());

  it('creates a site with every field, following up on what the service did not store', async () => {
    env = await setup(mode);
    const site = desired(
      'shop.example.com',
      {
        privacy: 'password',
        email: true,
        excludeBots: false,
        excludeParams: ['utm_source', 'fbclid'],
        excludeIps: ['10.0.0.1'],
        favorite: true,
      },
      'correct horse',
    );
    const created = await env.client.createWebsite(site);
    expect(created).toMatchObject({ id: 1, domain: 'shop.example.com', hasPassword: true });
    expect(created.settings).toEqual({
      privacy: 'password',
      email: true,
      excludeBots: false,
      excludeIps: ['10.0.0.1'],
      favorite: true,
      ...(!quirks && { excludeParams: ['fbclid', 'utm_source'] }),
    });
    // v31 ignores favorited_at on create: exactly one follow-up update sets the favourite.
    expect(env.client.stats.requests).toBe(quirks ? 2 : 1);
    expect(JSON.stringify(created)).not.toContain('correct horse');
    const [listed] = await env.client.listWebsites();
    expect(listed?.settings).toEqual(created.settings);
    expect(JSON.stringify(listed?.raw)).not.toContain('correct horse');
  });

  it('creates a site with the defaults in one request', async () => {
    env = await setup(mode);
    const created = await env.client.createWebsite(desired('plain.example.com'));
    expect(created.settings).toMatchObject({
      privacy: 'private',
      email: false,
      excludeBots: true,
      excludeIps: [],
      favorite: false,
    });
    expect(env.client.stats.requests).toBe(1);
  });

  it('updates only the given fields, including clearing lists and the favourite', async () => {
    env = await setup(mode);
    const { id } = await env.client.createWebsite(
      desired('a.example.com', { excludeIps: ['1.1.1.1', '2.2.2.2'], favorite: true }),
    );
    const updated = await env.client.updateWebsite(id, {
      settings: { excludeIps: [], favorite: false, privacy: 'public' },
    });
    expect(updated.settings).toMatchObject({
      privacy: 'public',
      email: false,
      excludeBots: true,
      excludeIps: [],
      favorite: false,
    });
    const again = await env.client.updateWebsite(id, { settings: { email: true, excludeIps: ['::1', '10.0.0.0/8'] } });
    expect(again.settings).toMatchObject({
      privacy: 'public',
      email: true,
      excludeIps: ['10.0.0.0/8', '::1'],
      favorite: false,
    });
    expect(await env.client.getWebsite(id)).toMatchObject({ settings: again.settings });
  });

  it('sets a password without ever reading it back', async () => {
    env = await setup(mode);
    const { id, hasPassword } = await env.client.createWebsite(desired('p.example.com'));
    expect(hasPassword).toBe(false);
    const updated = await env.client.updateWebsite(id, {
      settings: { privacy: 'password' },
      password: new Secret('s3cret-pass'),
    });
    expect(updated.hasPassword).toBe(true);
    expect(JSON.stringify(updated)).not.toContain('s3cret-pass');
  });

  it('deletes a site; a site already gone counts as success', async () => {
    env = await setup(mode);
    const id = await insertWebsite(env.server, 'gone.example.com');
    expect(await env.client.deleteWebsite(id)).toBe(true);
    expect(await env.client.deleteWebsite(id)).toBe(false);
    expect(await env.client.getWebsite(id)).toBeUndefined();
  });

  it('reports an update of a site deleted out of band as not_found, not as a server error', async () => {
    env = await setup(mode);
    const id = await insertWebsite(env.server, 'vanished.example.com');
    await env.server.server.store.deleteWebsite(env.server.accountId, id);
    await expect(env.client.updateWebsite(id, { settings: { email: true } })).rejects.toMatchObject({
      code: 'not_found',
      message: `website ${id} no longer exists (deleted outside sitesync?)`,
    });
    expect(env.client.stats).toMatchObject({ requests: 2, retries: 0 }); // the PUT, then one GET to look
  });
});
