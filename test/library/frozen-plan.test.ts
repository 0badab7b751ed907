// The plan the library hands out (`planned` events, `confirm`, outcomes) is the
// plan the safety gate checked and the writes use, and no caller can change it:
// it is frozen, so a handler that mutates it fails before anything is written
// (issue #33, item 4). Against the real reference server.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { apply, type EngineEvent } from '../../src/index.js';
import type { DeleteChange, Plan } from '../../src/model/plan.js';
import { domainsInDb, seedWebsites } from '../apply/support.js';
import { config } from '../cli/apply-support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDirWith } from '../helpers/temp.js';

describe('the library plan is immutable to callers', () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeEach(async () => {
    server = await startTestServer();
    env = { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key };
    await seedWebsites(server, ['a.example', 'b.example']);
  });
  afterEach(async () => server.close());

  const protectedConfig = () =>
    tempDirWith('frozen-plan', {
      'websites.yaml': config({ 'b.example': '', 'c.example': '', 'd.example': '' }, 'protect: ["a.example"]\n'),
    });

  /** The id of a seeded site, as a caller reads it from the service. */
  const idOf = async (domain: string) => {
    const response = await fetch(`${server.url}/api/v1/websites?search=${domain}`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    const { data } = (await response.json()) as { data: { id: number; domain: string }[] };
    return data.find((site) => site.domain === domain)?.id ?? -1;
  };

  test('a handler that pushes a delete on `planned` cannot get a protected site deleted', async () => {
    const id = await idOf('a.example');
    const pushed: DeleteChange = { action: 'delete', domain: 'a.example', id, before: {}, fingerprint: 'x' };
    const onEvent = (event: EngineEvent) => {
      if (event.type === 'planned') event.plan.changes.push(pushed);
    };
    await expect(apply({ cwd: protectedConfig(), env, onEvent })).rejects.toThrow(TypeError);
    expect(await domainsInDb(server)).toEqual(['a.example', 'b.example']);
  });

  test('an in-place sort or filter for display is refused; a sorted copy leaves the writes as gated', async () => {
    const cwd = protectedConfig();
    const reverse = (changes: Plan['changes']) => changes.sort((x, y) => y.domain.localeCompare(x.domain));
    const sorting = (event: EngineEvent) => {
      if (event.type === 'planned') reverse(event.plan.changes);
    };
    await expect(apply({ cwd, env, onEvent: sorting })).rejects.toThrow(TypeError);
    const filtering = (event: EngineEvent) => {
      if (event.type === 'planned') event.plan.changes.splice(1);
    };
    await expect(apply({ cwd, env, onEvent: filtering })).rejects.toThrow(TypeError);
    expect(await domainsInDb(server)).toEqual(['a.example', 'b.example']);

    const shown: string[] = [];
    const display = (event: EngineEvent) => {
      if (event.type === 'planned') shown.push(...reverse([...event.plan.changes]).map((change) => change.domain));
    };
    const confirmed: Plan[] = [];
    const outcome = await apply({
      cwd,
      env,
      onEvent: display,
      confirm: async (planned) => confirmed.push(planned) > 0,
    });
    expect(shown).toEqual(['d.example', 'c.example']);
    expect(outcome.kind).toBe('applied');
    expect(outcome.plan.changes.map((change) => change.domain)).toEqual(['c.example', 'd.example']);
    expect(Object.isFrozen(outcome.plan.changes[0])).toBe(true);
    expect(Object.isFrozen(outcome.plan.summary)).toBe(true);
    expect(confirmed[0]).toBe(outcome.plan);
    expect(await domainsInDb(server)).toEqual(['a.example', 'b.example', 'c.example', 'd.example']);
  });
});
