/**
 * Issue 33 item 5: a first page `{"data":[[[[…]]]]}` nested millions deep,
 * under the 64 MiB cap, kept `plan --timeout 5` parsing for 18 s at 1.5 GB.
 * The client reads an answer's JSON shape as its bytes arrive, and refuses it
 * at the first byte past the depth or value bound, without reading the rest;
 * the parse that follows a complete answer is bounded by the same limits.
 * Hostile servers here answer over real HTTP and hold their connection open
 * until the client leaves, so a refusal that waited for the end would hang.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type WebsitesApi } from '../../src/api/index.js';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/api/json-shape.js';
import { Secret } from '../../src/model/secret.js';
import { type HoldingServer, holdingServer } from '../helpers/holding-server.js';

const LISTING = 'GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1';

interface Hostile extends HoldingServer {
  client: WebsitesApi;
}

async function hostileAnswer(prefix: string, end?: string): Promise<Hostile> {
  const server = await holdingServer(prefix, end);
  const client = createClient({
    url: server.url,
    apiKey: new Secret('json-bounds-key-0123456789'),
    rateLimitPerMinute: 0,
    timeouts: { operationMs: 600_000 },
  });
  const closeServer = server.close;
  return Object.assign(server, {
    client,
    close: async () => {
      await client.close();
      await closeServer();
    },
  });
}

describe('a hostile answer is refused as its JSON arrives', () => {
  let hostile: Hostile | undefined;
  afterEach(async () => {
    await hostile?.close();
    hostile = undefined;
  });

  it(`nested deeper than ${MAX_JSON_DEPTH} levels: refused before the rest is read, not retried`, async () => {
    hostile = await hostileAnswer(`{"data":${'['.repeat(100_000)}`);
    const error = await hostile.client.listWebsites().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'protocol', details: { reason: 'too_deep', limit: MAX_JSON_DEPTH } });
    expect((error as Error).message).toBe(
      `${LISTING} to ${hostile.client.url}: the answer's JSON nests deeper than ${MAX_JSON_DEPTH} levels (a website list has 4): refused; is this the websites service?`,
    );
    await hostile.abandoned;
    expect(hostile.requests).toBe(1);
  });

  it(`more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values: refused before the rest is read`, async () => {
    hostile = await hostileAnswer(`{"data":[${'{},'.repeat(MAX_JSON_VALUES)}`);
    const error = await hostile.client.listWebsites().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'protocol', details: { reason: 'too_many_values' } });
    expect((error as Error).message).toContain(
      `: the answer's JSON holds more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values (a page of 100 websites holds about 2,000): refused`,
    );
    await hostile.abandoned;
  });

  it('brackets inside strings, escaped quotes and a complete deep-but-bounded answer are read as before', async () => {
    const inString = `"${'['.repeat(1_000)}\\"${'{'.repeat(1_000)}"`;
    const site = `{"id":7,"domain":"a.example","privacy":1,"exclude_params":${inString}}`;
    const nested = `${'['.repeat(MAX_JSON_DEPTH - 3)}${']'.repeat(MAX_JSON_DEPTH - 3)}`;
    hostile = await hostileAnswer('', `{"data":[${site}],"meta":{"total":1,"deep":${nested}}}`);
    const [read] = await hostile.client.listWebsites();
    expect(read).toMatchObject({ id: 7, domain: 'a.example' });
  });
});
