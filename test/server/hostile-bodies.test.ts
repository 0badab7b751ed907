// Hostile bodies (issue 23, items 1 and 5): the worst body of each content type within the 64 KiB
// limit is answered without holding the event loop, and /health keeps answering meanwhile. Runs on
// both backends (vitest.config.ts). Why a generous bound and not a latency figure: docs/testing.md.
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FIELDS, MAX_JSON_DEPTH } from '../../src/server/http/form-body.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const domain = () => `hostile-${randomUUID().slice(0, 8)}.example`;

interface Hostile {
  name: string;
  type: string;
  body: () => string | Buffer;
  status: number;
}

/** Each near 64 KiB: the shapes that cost a naive parser the most. */
const HOSTILE: Hostile[] = [
  { name: '32,000 repeated form fields (x&x&…)', type: FORM, body: () => 'x&'.repeat(32_000), status: 413 },
  {
    name: `${MAX_FIELDS + 1} distinct form fields`,
    type: FORM,
    body: () => Array.from({ length: MAX_FIELDS + 1 }, (_, index) => `f${index}=1`).join('&'),
    status: 413,
  },
  {
    name: 'one form value of 21,000 percent-escapes',
    type: FORM,
    body: () => `domain=${domain()}&exclude_params=${'%41'.repeat(21_000)}`,
    status: 201,
  },
  {
    name: 'JSON nested 32,000 deep',
    type: JSON_TYPE,
    body: () => `${'['.repeat(32_000)}${']'.repeat(32_000)}`,
    status: 400,
  },
  {
    name: 'JSON with 7,000 keys',
    type: JSON_TYPE,
    body: () => `{${Array.from({ length: 7_000 }, (_, index) => `"${index}":0`).join(',')}}`,
    status: 413,
  },
  {
    name: 'one JSON string of 10,000 \\u escapes',
    type: JSON_TYPE,
    body: () => `{"domain":"${domain()}","exclude_params":"${'\\u00e9'.repeat(10_000)}"}`,
    status: 201,
  },
  { name: 'text/plain', type: 'text/plain', body: () => 'x&'.repeat(32_000), status: 415 },
  { name: 'multipart', type: 'multipart/form-data; boundary=b', body: () => '--b\r\n'.repeat(12_000), status: 415 },
];

describe('hostile bodies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const post = (type: string, body: string | Buffer) =>
    fetch(`${server.url}/api/v1/websites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, accept: 'application/json', 'content-type': type },
      body,
    });

  const sendAll = async () => {
    const statuses: Record<string, number> = {};
    for (const hostile of HOSTILE) {
      const response = await post(hostile.type, hostile.body());
      await response.arrayBuffer();
      statuses[hostile.name] = response.status;
    }
    return statuses;
  };

  it('answers the worst body of each content type while /health keeps answering', async () => {
    const expected = Object.fromEntries(HOSTILE.map((hostile) => [hostile.name, hostile.status]));
    // A first round warms the code paths up (compiling them is not what is measured).
    expect(await sendAll()).toEqual(expected);
    // The server runs in this process: the event loop's delay is the server's. Before the fix one
    // 32,000-field form held it 7.4 s; now each body holds it under the histogram's 10 ms
    // resolution. The bound is far above a loaded machine's scheduling noise (docs/testing.md).
    const delay = monitorEventLoopDelay({ resolution: 10 });
    let healthAnswers = 0;
    let done = false;
    delay.enable();
    const healthLoop = (async () => {
      while (!done) {
        const response = await fetch(`${server.url}/health`);
        expect(response.status).toBe(200);
        await response.arrayBuffer();
        healthAnswers += 1;
      }
    })();
    const statuses = await sendAll();
    done = true;
    await healthLoop;
    delay.disable();
    const maxMs = delay.max / 1e6;
    const p99Ms = delay.percentile(99) / 1e6;
    expect(maxMs, `event loop held ${maxMs.toFixed(0)} ms (p99 ${p99Ms.toFixed(1)} ms)`).toBeLessThan(1_000);
    expect(statuses).toEqual(expected);
    expect(healthAnswers).toBeGreaterThan(0);
  });

  it(`parses the largest admissible form: ${MAX_FIELDS} fields`, async () => {
    const extra = Array.from({ length: MAX_FIELDS - 1 }, (_, index) => `f${index}=1`).join('&');
    const response = await post(FORM, `domain=${domain()}&${extra}`);
    expect(response.status).toBe(201);
  });

  it('says which limit a body broke', async () => {
    const fields = await post(FORM, 'x&'.repeat(MAX_FIELDS + 1));
    expect(await fields.json()).toEqual({ message: `Too many fields (at most ${MAX_FIELDS}).`, status: 413 });
    const deep = await post(JSON_TYPE, `{"domain":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`);
    expect(await deep.json()).toEqual({
      message: `JSON nested too deeply (at most ${MAX_JSON_DEPTH} levels).`,
      status: 400,
    });
    const fits = await post(JSON_TYPE, `{"domain":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`);
    expect(fits.status).toBe(422);
  });

  it('refuses invalid UTF-8 in JSON with 400, as forms do, and stores nothing', async () => {
    const name = domain();
    const body = Buffer.concat([
      Buffer.from(`{"domain":"${name}","exclude_params":"utm`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('src"}'),
    ]);
    const response = await post(JSON_TYPE, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'Malformed JSON body.', status: 400 });
    const form = await post(FORM, `domain=${name}&exclude_params=utm%FF%FEsrc`);
    expect(form.status).toBe(400);
    const listed = await fetch(`${server.url}/api/v1/websites?search=${name}`, {
      headers: { authorization: `Bearer ${server.key}`, accept: 'application/json' },
    });
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  });
});

describe('hostile multipart bodies in quirks mode (issue 37: read as PHP fills $_POST)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ quirks: 'phpanalytics-v31' });
  });
  afterAll(() => server.close());

  /** Near the 128 KiB quirks limit: what costs a multipart parser the most. */
  const bodies: [name: string, body: string, status: number][] = [
    ['26,000 empty parts', '--b\r\n'.repeat(26_000), 422],
    [
      '1,600 file parts (never counted as fields)',
      `--b\r\nContent-Disposition: form-data; name="f"; filename="f"\r\n\r\nx\r\n`.repeat(1_600),
      422,
    ],
    [
      `${MAX_FIELDS + 1} named parts`,
      `${`--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n`.repeat(MAX_FIELDS + 1)}--b--\r\n`,
      413,
    ],
    [
      'one part of 120 KiB without a closing boundary',
      `--b\r\nContent-Disposition: form-data; name="domain"\r\n\r\n${'a'.repeat(120_000)}`,
      422,
    ],
  ];

  it('answers each within the bounds, the event loop never held', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    for (const [name, body, status] of bodies) {
      const response = await fetch(`${server.url}/api/v1/websites`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.key}`,
          accept: 'application/json',
          'content-type': 'multipart/form-data; boundary=b',
        },
        body,
      });
      await response.arrayBuffer();
      expect([name, response.status]).toEqual([name, status]);
    }
    delay.disable();
    expect(delay.max / 1e6).toBeLessThan(1_000);
  });
});
