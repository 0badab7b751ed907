/**
 * `sitesync plan` reports coverage in every format, counted from the live
 * sites of the reference server over real HTTP.
 */
import { describe, expect, it } from 'vitest';
import { client } from '../helpers/server.js';
import { config, useCliFixture } from './apply-support.js';

const SCOPED = config(
  { 'a.shop.example': '', 'b.shop.example': '    email: true\n', 'listed.example': '' },
  'manage:\n  include: ["*.shop.example"]\n',
);

describe('sitesync plan: coverage', () => {
  const cli = useCliFixture({
    config: SCOPED,
    before: async ({ server }) => {
      const api = client(server);
      for (const domain of [
        'a.shop.example',
        'b.shop.example',
        'listed.example',
        'stray.shop.example',
        'blog.example',
      ]) {
        expect((await api('POST', '/api/v1/websites', { form: { domain } })).status).toBe(201);
      }
    },
  });

  it('counts managed and unmanaged live sites in human, Markdown and JSON output', async () => {
    const line = 'Coverage: 3 of 5 live websites managed (60%); 2 unmanaged: 1 outside manage, 1 not listed, kept.';
    const human = await cli.ws.run(['plan']);
    expect(human.code).toBe(0);
    expect(human.out).toContain(`${line}\nPlan: 0 to create, 1 to update, 0 to delete; 2 unchanged.\n`);

    const markdown = await cli.ws.run(['plan', '--format', 'markdown']);
    expect(markdown.out).toContain(`${line}\n`);

    const json = await cli.ws.run(['plan', '--format', 'json']);
    expect(JSON.parse(json.out).coverage).toEqual({
      live: 5,
      managed: 3,
      unmanaged: 2,
      outOfScope: 1,
      kept: 1,
      duplicates: 0,
      percent: 60,
    });
  });

  it('counts an unlisted site in scope as managed when prune deletes it', async () => {
    cli.ws.write('websites.yaml', `${SCOPED.replace('manage:', 'prune: true\nmanage:')}`);
    const json = await cli.ws.run(['plan', '--format', 'json']);
    expect(JSON.parse(json.out).coverage).toMatchObject({ live: 5, managed: 4, kept: 0, outOfScope: 1, percent: 80 });
  });
});
