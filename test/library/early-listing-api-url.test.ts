// Listing while parsing when the URL is the configuration's own `api.url` (issue 25): the engine starts the
// listing once the files are read, from a scan of their text, and drops it when the loaded file says otherwise.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { loadConfigText } from '../../src/config/index.js';
import { ignoreEvents } from '../../src/engine/context.js';
import { loadWhileListing } from '../../src/engine/early-listing.js';
import { runRequest } from '../../src/engine/request.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertWebsites } from '../helpers/stored-website.js';

describe('an api.url-only configuration lists while it is parsed', () => {
  let server: TestServer;
  let other: TestServer;
  let requests: string[] = [];
  let answered: () => void = () => {};
  beforeAll(async () => {
    server = await startTestServer({
      log: (line) => {
        requests.push(`${JSON.parse(line).method} ${JSON.parse(line).path}`);
        answered();
      },
    });
    other = await startTestServer();
    await insertWebsites(server.server, server.key, ['a.example.com', 'b.example.com']);
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await other.close();
  });
  beforeEach(() => {
    requests = [];
  });

  /** The key, and both servers' origins pinned as an operator pins them (issue 33). */
  const pinned = () => ({ SITESYNC_API_KEY: server.key, SITESYNC_ALLOWED_ORIGINS: `${server.url},${other.url}` });
  const configWith = (url: string) => `version: 1\napi:\n  url: ${url}/\nwebsites:\n  - domain: a.example.com\n`;

  test('the listing is answered before the configuration is parsed, and it is the plan’s listing', async () => {
    const text = configWith(server.url);
    const context = { env: pinned(), cwd: process.cwd(), events: ignoreEvents };
    const serverAnswered = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const { state, early } = await loadWhileListing(runRequest(), context, async (onRead) => {
      onRead?.([text]);
      await serverAnswered; // never resolves if nothing was listed before parsing: the test times out
      return loadConfigText(text, 'websites.yaml', context.env).state!;
    });
    expect(state.apiUrl).toBe(server.url);
    expect(early?.connection.url).toBe(server.url);
    const live = await early!.live();
    await early!.cancel();
    expect(live.map((site) => site.domain).sort()).toEqual(['a.example.com', 'b.example.com']);
    expect(requests).toEqual(['GET /api/v1/websites']);
  });

  test('a scanned URL that the loaded configuration contradicts is cancelled, not used', async () => {
    const scanned = configWith(server.url);
    const loaded = configWith(other.url);
    const context = { env: pinned(), cwd: process.cwd(), events: ignoreEvents };
    const { state, early } = await loadWhileListing(runRequest(), context, async (onRead) => {
      onRead?.([scanned]);
      return loadConfigText(loaded, 'websites.yaml', context.env).state!;
    });
    expect(state.apiUrl).toBe(other.url);
    expect(early).toBeUndefined();
    expect(requests.length).toBeLessThanOrEqual(1);
  });

  test('a URL the scan cannot read with certainty starts nothing early', async () => {
    const context = { env: pinned(), cwd: process.cwd(), events: ignoreEvents };
    for (const text of [
      `version: 1\napi: { url: ${server.url} }\nwebsites: []\n`,
      `version: 1\napi:\n  url: "${server.url}\\/"\nwebsites: []\n`,
      `version: 1\napi:\n  url: \${UNSET_HOST_OF_THIS_TEST}\nwebsites: []\n`,
    ]) {
      const { early } = await loadWhileListing(runRequest(), context, async (onRead) => {
        onRead?.([text]);
        return loadConfigText(`version: 1\nwebsites: []\n`, 'websites.yaml', context.env).state!;
      });
      expect(early).toBeUndefined();
    }
    expect(requests).toEqual([]);
  });

  test('a scanned URL whose origin is not pinned starts nothing, and the load says why', async () => {
    const context = { env: { SITESYNC_API_KEY: server.key }, cwd: process.cwd(), events: ignoreEvents };
    const text = configWith(server.url);
    const { state, early } = await loadWhileListing(runRequest(), context, async (onRead) => {
      onRead?.([text]);
      return loadConfigText(text, 'websites.yaml', context.env).state!;
    });
    expect(early).toBeUndefined();
    expect(state.apiUrl).toBe(server.url);
    expect(requests).toEqual([]);
  });
});
