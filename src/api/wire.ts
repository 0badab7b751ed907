/**
 * Wire JSON ⇄ model. The ONLY module that knows snake_case names, the `data`
 * envelope, "1"/1/null values, `\r\n` lists, the Laravel paginator and the two
 * error body shapes. Decoding is tolerant of every representation the real
 * service and the contract use, and strict about shape: anything else is a
 * `protocol` error naming the request, never a crash or a silent guess. The
 * one exception, on request (`onUnreadable`): a setting value nobody can read
 * leaves that setting out of the record (unknown, like a write-only one) and
 * is reported, instead of failing a whole listing over one site's setting.
 * Identity (id, domain) is always strict. No I/O; values are canonicalised
 * through `FIELDS` only.
 */
import { SitesyncError } from '../model/errors.js';
import type { Secret } from '../model/secret.js';
import {
  FIELDS,
  type LiveWebsite,
  PRIVACY_CODE,
  SETTING_NAMES,
  type SettingName,
  type WebsiteSettings,
} from '../model/website.js';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function protocolError(request: string, problem: string): SitesyncError {
  return new SitesyncError('protocol', `${request}: ${problem}`, { request, problem });
}

/**
 * A JSON body: parsed already (`json`, by the transport, under the deadline),
 * or a scalar parsed here; an HTML page or truncated text is a protocol error.
 */
export function parseJsonBody(body: { text: string; json?: { value: unknown } }, request: string): unknown {
  if (body.json !== undefined) return body.json.value;
  const { text } = body;
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch {}
  }
  const what =
    trimmed === '' ? 'an empty body' : trimmed.startsWith('<') ? 'an HTML page' : 'invalid or truncated JSON';
  throw protocolError(request, `expected JSON, got ${what}`);
}

/** Whether an HTML page is a login form: structural (a password input), never its translated text. */
export function looksLikeLoginPage(text: string): boolean {
  return /<input[^>]+type\s*=\s*["']?password/i.test(text);
}

/** A setting value that no canonical form reads (e.g. `email: "yes"`). */
export interface UnreadableSetting {
  id: number;
  domain: string;
  /** The wire name (`email`). */
  field: string;
  value: unknown;
}

/**
 * Receives each unreadable setting; the setting is then left out of the
 * record. Without it, an unreadable setting is a `protocol` error.
 */
export type OnUnreadable = (problem: UnreadableSetting) => void;

/** `{"data": {...}}` or the bare record. */
export function decodeRecordBody(body: unknown, request: string, onUnreadable?: OnUnreadable): LiveWebsite {
  const record = isObject(body) && 'data' in body ? body.data : body;
  return decodeWebsite(record, request, onUnreadable);
}

function decodeId(raw: unknown): number | undefined {
  const id = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** A favourite is the `favorite` boolean when present, else whether `favorited_at` is set. */
function decodeFavorite(record: JsonObject): unknown {
  if ('favorite' in record) return record.favorite;
  if ('favorited_at' in record) return record.favorited_at !== null && record.favorited_at !== '';
  return undefined;
}

/** `password` is a boolean (whether one is set); an echo may carry 0/1 or, worse, the value itself. */
function decodeHasPassword(raw: unknown): boolean | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw !== 0;
  if (typeof raw === 'string') return !/^(?:|0|false)$/i.test(raw.trim());
  return raw !== null;
}

/** Each setting's name, wire name and canonical form, looked up once. */
const SETTING_SPECS = SETTING_NAMES.map((name) => ({
  name,
  wireName: FIELDS[name].wireName,
  canonical: FIELDS[name].canonical as (raw: unknown) => unknown,
}));

/**
 * Canonical values already computed for a raw value (a text, a number, a
 * boolean, null), per setting, within one page: many sites share their lists
 * (the same office IPs), and splitting, sorting and canonicalising the same
 * text a hundred times is most of the decoding cost; the same few flags and
 * codes, looked up, cost less than read again. Lists are copied out, so no
 * two records share an array.
 */
type CanonicalMemo = Map<unknown, unknown>[];

function canonicalOf(index: number, raw: unknown, memo: CanonicalMemo | undefined): unknown {
  const spec = SETTING_SPECS[index]!;
  if (memo === undefined || (typeof raw === 'object' && raw !== null)) return spec.canonical(raw);
  let seen = memo[index];
  if (seen === undefined) {
    seen = new Map();
    memo[index] = seen;
  }
  let value = seen.get(raw);
  if (value === undefined && !seen.has(raw)) {
    value = spec.canonical(raw);
    seen.set(raw, value);
    return value;
  }
  return Array.isArray(value) ? value.slice() : value;
}

/**
 * One website record; a setting the server does not return is left out
 * (write-only there), and so is an unreadable one when `onUnreadable` is given.
 */
export function decodeWebsite(
  record: unknown,
  request: string,
  onUnreadable?: OnUnreadable,
  memo?: CanonicalMemo,
): LiveWebsite {
  if (!isObject(record)) throw protocolError(request, 'expected a website record (a JSON object)');
  const id = decodeId(record.id);
  if (id === undefined)
    throw protocolError(request, `a website record has no valid id (${JSON.stringify(record.id) ?? 'none'})`);
  if (typeof record.domain !== 'string' || record.domain === '') {
    throw protocolError(request, `website ${id} has no domain`);
  }
  const settings: Partial<WebsiteSettings> = {};
  for (let index = 0; index < SETTING_SPECS.length; index++) {
    const { name, wireName } = SETTING_SPECS[index]!;
    const raw = name === 'favorite' ? decodeFavorite(record) : record[wireName];
    if (raw === undefined) continue;
    const value = canonicalOf(index, raw, memo);
    if (value === undefined && onUnreadable) {
      onUnreadable({ id, domain: record.domain, field: wireName, value: raw });
      continue;
    }
    if (value === undefined) {
      throw protocolError(request, `website ${record.domain}: unexpected ${wireName} ${JSON.stringify(raw)}`);
    }
    (settings as Record<SettingName, unknown>)[name] = value;
  }
  const hasPassword = decodeHasPassword(record.password);
  // `record` is freshly parsed and ours: kept as `raw` without a copy, holding the password flag only.
  if (hasPassword !== undefined) record.password = hasPassword;
  const live: LiveWebsite = { id, domain: record.domain, settings, hasPassword, raw: record };
  if (typeof record.created_at === 'string') live.createdAt = record.created_at;
  if (typeof record.updated_at === 'string') live.updatedAt = record.updated_at;
  return live;
}

/** One page of a listing, with whatever pagination facts the server gave. */
export interface ListPage {
  websites: LiveWebsite[];
  currentPage?: number;
  lastPage?: number;
  perPage?: number;
  total?: number;
  /** `links.next` is present and not null; undefined when the server sends no links. */
  hasNext?: boolean;
}

function optionalCount(raw: unknown): number | undefined {
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** A Laravel paginator body (`data`, `meta`, `links`) or a bare array. */
export function decodeListPage(body: unknown, request: string, onUnreadable?: OnUnreadable): ListPage {
  const items = Array.isArray(body) ? body : isObject(body) ? body.data : undefined;
  if (!Array.isArray(items)) throw protocolError(request, 'expected a list of websites (`data` array)');
  const memo: CanonicalMemo = [];
  const page: ListPage = { websites: items.map((item) => decodeWebsite(item, request, onUnreadable, memo)) };
  if (!isObject(body)) return page;
  const meta = isObject(body.meta) ? body.meta : body; // some paginators put meta at the root
  const currentPage = optionalCount(meta.current_page);
  const lastPage = optionalCount(meta.last_page);
  const perPage = optionalCount(meta.per_page);
  const total = optionalCount(meta.total);
  if (currentPage !== undefined) page.currentPage = currentPage;
  if (lastPage !== undefined) page.lastPage = lastPage;
  if (perPage !== undefined) page.perPage = perPage;
  if (total !== undefined) page.total = total;
  const links = isObject(body.links) ? body.links : undefined;
  if (links && 'next' in links) page.hasNext = links.next !== null && links.next !== '';
  else if ('next_page_url' in meta) page.hasNext = meta.next_page_url !== null;
  return page;
}

/**
 * The query of one listing page: id ascending (an order that inserts and
 * deletes cannot reshuffle) and `pageSize` per page. `search` is the service's
 * substring match on the domain.
 */
export function encodeListQuery(page: number, pageSize: number, search?: string): string {
  const query = new URLSearchParams(search === undefined ? {} : { search, search_by: 'domain' });
  query.set('sort_by', 'id');
  query.set('sort', 'asc');
  query.set('per_page', String(pageSize));
  query.set('page', String(page));
  return query.toString();
}

/** What an error body says: one message, and messages per field. */
export interface ErrorBody {
  message?: string;
  fields: Record<string, string[]>;
}

function messagesOf(raw: unknown): string[] {
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw)) return raw.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

function fieldMap(raw: JsonObject): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(raw)) fields[field] = messagesOf(messages);
  return fields;
}

/** `{"message": "..."}`, `{"message": {field: [...]}}` (the real service) or `{"errors": {field: [...]}}`. */
export function decodeErrorBody(text: string): ErrorBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { fields: {} };
  }
  if (!isObject(body)) return { fields: {} };
  const result: ErrorBody = { fields: {} };
  if (typeof body.message === 'string') result.message = body.message;
  else if (isObject(body.message)) result.fields = fieldMap(body.message);
  if (isObject(body.errors)) result.fields = { ...result.fields, ...fieldMap(body.errors) };
  return result;
}

/** `Y-m-dTH:i:s` in UTC: the contract's favorited_at pattern. */
export function formatFavoritedAt(now: Date): string {
  return now.toISOString().slice(0, 19);
}

/** The form value of one setting. */
function encodeSetting<K extends SettingName>(name: K, value: WebsiteSettings[K]): string {
  if (name === 'privacy') return String(PRIVACY_CODE[value as WebsiteSettings['privacy']]);
  if (Array.isArray(value)) return value.join('\n');
  return value ? '1' : '0';
}

export interface EncodeOptions {
  password?: Secret | undefined;
  now: Date;
  /** On create, empty lists and a false favourite are left to the service's defaults. */
  create: boolean;
}

/** Form-urlencoded body for a create or an update: exactly the given settings. */
export function encodeWrite(domain: string | undefined, settings: Partial<WebsiteSettings>, options: EncodeOptions) {
  const form = new URLSearchParams();
  if (domain !== undefined) form.set('domain', domain);
  for (const name of SETTING_NAMES) {
    const value = settings[name];
    if (value === undefined) continue;
    const serviceDefault = (name === 'favorite' && value === false) || (Array.isArray(value) && value.length === 0);
    if (options.create && serviceDefault) continue;
    if (name === 'favorite') {
      // Both forms: the contract's favorited_at and the real service's favorite=0/1.
      form.set('favorite', value ? '1' : '0');
      form.set('favorited_at', value ? formatFavoritedAt(options.now) : '');
      continue;
    }
    form.set(FIELDS[name].wireName, encodeSetting(name, value));
  }
  // The one place a password is revealed: the request body.
  if (options.password !== undefined) form.set('password', options.password.reveal());
  return form.toString();
}
