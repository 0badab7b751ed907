import { describe, expect, it } from 'vitest';
import { decodeErrorBody, decodeListPage, decodeRecordBody, encodeWrite, parseJsonBody } from '../../src/api/wire.js';
import { Secret } from '../../src/model/secret.js';
import { defaultSettings } from '../../src/model/website.js';

const REQUEST = 'GET /api/v1/websites/12';
const NOW = new Date('2026-05-01T10:20:30.456Z');

describe('decoding records (bodies from service-notes.md)', () => {
  it('reads a GET record of the real service: numbers, null, CRLF lists, no exclude_params', () => {
    const body = JSON.parse(
      '{"data": {"id": 12, "domain": "example.com", "privacy": null, "email": null, "password": false, "exclude_bots": null, "exclude_ips": "10.0.0.1\\r\\n10.0.0.2\\r\\n", "favorite": true, "favorited_at": "2024-05-01 10:20:30", "created_at": "2024-04-30T08:00:00.000000Z", "updated_at": "2024-04-30T08:00:00.000000Z"}, "status": 200}',
    );
    const site = decodeRecordBody(body, REQUEST);
    expect(site).toMatchObject({
      id: 12,
      domain: 'example.com',
      hasPassword: false,
      createdAt: '2024-04-30T08:00:00.000000Z',
    });
    expect(site.settings).toEqual({
      privacy: 'public',
      email: false,
      excludeBots: false,
      excludeIps: ['10.0.0.1', '10.0.0.2'],
      favorite: true,
    });
    expect('excludeParams' in site.settings).toBe(false);
  });

  it('reads a POST/PUT echo: form values as strings', () => {
    const site = decodeRecordBody(
      {
        data: {
          id: '7',
          domain: 'a.example.com',
          privacy: '2',
          email: '1',
          exclude_bots: '0',
          exclude_params: 'b\ra\n',
          password: true,
          favorite: false,
        },
      },
      'POST /api/v1/websites',
    );
    expect(site.id).toBe(7);
    expect(site.settings).toEqual({
      privacy: 'password',
      email: true,
      excludeBots: false,
      excludeParams: ['a', 'b'],
      favorite: false,
    });
  });

  it('derives the favourite from favorited_at when there is no favorite boolean; reads a bare body', () => {
    const base = { id: 1, domain: 'a.example.com' };
    expect(decodeRecordBody({ ...base, favorited_at: '2026-01-01T00:00:00' }, REQUEST).settings).toEqual({
      favorite: true,
    });
    expect(decodeRecordBody({ ...base, favorited_at: null }, REQUEST).settings).toEqual({ favorite: false });
    expect(decodeRecordBody(base, REQUEST)).toMatchObject({ settings: {}, hasPassword: undefined });
  });

  it('never keeps a password value an echo might carry, only whether one is set', () => {
    const site = decodeRecordBody({ id: 1, domain: 'a.example.com', password: 'hunter22' }, REQUEST);
    expect(site.hasPassword).toBe(true);
    expect(JSON.stringify(site)).not.toContain('hunter22');
  });

  it.each([
    [{ id: 0, domain: 'a.example.com' }, 'GET /api/v1/websites/12: a website record has no valid id (0)'],
    [{ id: 1 }, 'GET /api/v1/websites/12: website 1 has no domain'],
    [
      { id: 1, domain: 'a.example.com', email: 'yes' },
      'GET /api/v1/websites/12: website a.example.com: unexpected email "yes"',
    ],
    [
      { id: 1, domain: 'a.example.com', exclude_ips: { a: 1 } },
      'GET /api/v1/websites/12: website a.example.com: unexpected exclude_ips {"a":1}',
    ],
    ['<html>', 'GET /api/v1/websites/12: expected a website record (a JSON object)'],
  ])('refuses a malformed record %j', (record, message) => {
    expect(() => decodeRecordBody({ data: record }, REQUEST)).toThrow(message);
  });

  it('names what a non-JSON body was', () => {
    expect(() => parseJsonBody({ text: '<!DOCTYPE html><html>' }, REQUEST)).toThrow(
      `${REQUEST}: expected JSON, got an HTML page`,
    );
    expect(() => parseJsonBody({ text: '' }, REQUEST)).toThrow(`${REQUEST}: expected JSON, got an empty body`);
    expect(() => parseJsonBody({ text: '{"data": [' }, REQUEST)).toThrow(
      `${REQUEST}: expected JSON, got invalid or truncated JSON`,
    );
    // What the transport parsed is taken as it is; a scalar is parsed here.
    expect(parseJsonBody({ text: '{}', json: { value: { data: [] } } }, REQUEST)).toEqual({ data: [] });
    expect(parseJsonBody({ text: ' "ok"' }, REQUEST)).toBe('ok');
  });
});

describe('decoding list pages', () => {
  it('reads the Laravel paginator', () => {
    const body = {
      data: [{ id: 1, domain: 'a.example.com', privacy: 1 }],
      links: {
        first: 'http://h/api/v1/websites?page=1',
        last: 'http://h/api/v1/websites?page=3',
        prev: null,
        next: 'http://h/api/v1/websites?page=2',
      },
      meta: {
        current_page: 1,
        from: 1,
        last_page: 3,
        links: [],
        path: 'http://h/api/v1/websites',
        per_page: 100,
        to: 1,
        total: 201,
      },
      status: 200,
    };
    const page = decodeListPage(body, REQUEST);
    expect(page).toMatchObject({ currentPage: 1, lastPage: 3, perPage: 100, total: 201, hasNext: true });
    expect(page.websites.map((site) => site.domain)).toEqual(['a.example.com']);
  });

  it('reads a bare array (no pagination facts) and a last page', () => {
    expect(decodeListPage([], REQUEST)).toEqual({ websites: [] });
    expect(decodeListPage({ data: [], links: { next: null }, meta: { last_page: 1, total: 0 } }, REQUEST)).toEqual({
      websites: [],
      lastPage: 1,
      total: 0,
      hasNext: false,
    });
  });

  it('reads every record of a page on its own: values repeated across sites, lists never shared, each unreadable value reported', () => {
    const site = (id: number, values: Record<string, unknown>) => ({ id, domain: `s${id}.example.com`, ...values });
    const same = { privacy: 1, email: 0, exclude_bots: '1', exclude_params: null, exclude_ips: '10.0.0.2\r\n10.0.0.1' };
    const unreadable: string[] = [];
    const page = decodeListPage(
      [
        site(1, { ...same, favorite: false }),
        site(2, { ...same, favorite: true }),
        site(3, { ...same, email: 5, privacy: 7 }),
        site(4, { ...same, privacy: 7, exclude_bots: 0 }),
      ],
      REQUEST,
      (problem) => unreadable.push(`${problem.id} ${problem.field} ${JSON.stringify(problem.value)}`),
    );
    const expected = { email: false, excludeBots: true, excludeParams: [], excludeIps: ['10.0.0.1', '10.0.0.2'] };
    expect(page.websites.map((live) => live.settings)).toEqual([
      { ...expected, privacy: 'private', favorite: false },
      { ...expected, privacy: 'private', favorite: true },
      expected,
      { ...expected, excludeBots: false },
    ]);
    expect(unreadable).toEqual(['3 privacy 7', '4 privacy 7']);
    const [first, second] = page.websites;
    expect(first!.settings.excludeIps).not.toBe(second!.settings.excludeIps);
    expect(first!.settings.excludeParams).not.toBe(second!.settings.excludeParams);
  });

  it('refuses a body without a data array', () => {
    expect(() => decodeListPage({ data: { id: 1 } }, REQUEST)).toThrow('expected a list of websites');
  });
});

describe('decoding error bodies', () => {
  it.each([
    ['{"message": "Unauthenticated."}', { message: 'Unauthenticated.', fields: {} }],
    [
      '{"message": {"domain": ["The domain has already been taken."]}, "status": 422}',
      { fields: { domain: ['The domain has already been taken.'] } },
    ],
    [
      '{"message": "The given data was invalid.", "errors": {"privacy": ["The selected privacy is invalid."], "password": "Required."}}',
      {
        message: 'The given data was invalid.',
        fields: { privacy: ['The selected privacy is invalid.'], password: ['Required.'] },
      },
    ],
    ['<html>502</html>', { fields: {} }],
  ])('%s', (text, expected) => {
    expect(decodeErrorBody(text)).toEqual(expected);
  });
});

describe('encoding writes', () => {
  it('a create sends privacy always, flags as 0/1, lists with \\n, favourite in both forms, the password', () => {
    const settings = {
      ...defaultSettings(),
      privacy: 'public' as const,
      excludeIps: ['10.0.0.1', '::1'],
      favorite: true,
    };
    const form = new URLSearchParams(
      encodeWrite('a.example.com', settings, { password: new Secret('pw-1234'), now: NOW, create: true }),
    );
    expect([...form]).toEqual([
      ['domain', 'a.example.com'],
      ['privacy', '0'],
      ['email', '0'],
      ['exclude_bots', '1'],
      ['exclude_ips', '10.0.0.1\n::1'],
      ['favorite', '1'],
      ['favorited_at', '2026-05-01T10:20:30'],
      ['password', 'pw-1234'],
    ]);
  });

  it('an update sends exactly the given fields, and empties to clear', () => {
    const form = new URLSearchParams(
      encodeWrite(undefined, { excludeParams: [], favorite: false, privacy: 'password' }, { now: NOW, create: false }),
    );
    expect([...form]).toEqual([
      ['privacy', '2'],
      ['exclude_params', ''],
      ['favorite', '0'],
      ['favorited_at', ''],
    ]);
  });
});
