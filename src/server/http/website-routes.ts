/**
 * The five website operations. Each handler validates (before any lookup, as
 * the real service does), talks to the store, and answers with the service's
 * envelopes. What the deployed service does differently (its input, ids, links,
 * echoed values, 500s) is its dialect, quirks-website.ts; the contract's is here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DomainTakenError,
  MAX_ID,
  type ServerStore,
  WebsiteLimitError,
  type WebsiteRecord,
  type WebsiteValues,
} from '../store/contract.js';
import { hashPassword } from '../store/credentials.js';
import { authenticatedAccount } from './auth.js';
import { type HttpError, invalid, notFound } from './http-error.js';
import { type ParsedList, parseListQuery } from './list-query.js';
import type { ServerMode } from './mode.js';
import { presentPage, presentWebsite, recordShape } from './present.js';
import {
  isUnstorable,
  MESSAGES,
  missingPassword,
  type ValidatedValues,
  validateStore,
  validateUpdate,
} from './validation.js';

export const COLLECTION = '/api/v1/websites';
export const ITEM = '/api/v1/websites/:id';

export type ItemRequest = FastifyRequest<{ Params: { id: string } }>;
export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** A write's time: the instant, and its fraction of a second in microseconds (six digits). */
export interface WriteTime {
  date: Date;
  fraction: string;
}

/** Where a mode departs from the contract in the website routes. */
export interface WebsiteDialect {
  mode: ServerMode;
  /** The fields a write reads. */
  input(request: FastifyRequest): Record<string, unknown>;
  /** The website an item route's `:id` names; undefined names none (404). */
  websiteId(text: string): number | undefined;
  listQuery(raw: Record<string, unknown>): ParsedList;
  /** The collection's URL, the base of page links. */
  pageUrl(request: FastifyRequest): string;
  now(): WriteTime;
  /** Runs before an update is validated; throws to refuse it. */
  authorizeUpdate(request: FastifyRequest, input: Record<string, unknown>): Promise<void>;
  /** The answer to an update of a website the account does not have. */
  missing(): HttpError;
  /** Throws when a value cannot be stored (quirks: the deployed columns' limits). */
  assertStorable(values: Partial<WebsiteValues>): void;
  /** The record a write answers with; `favorited` is the time the favourite was set, when this write set it. */
  written(website: WebsiteRecord, echo: Record<string, unknown>, favorited?: WriteTime): Record<string, unknown>;
}

/** The contract's reading: the body, ids as digits, links at the configured address. */
export function contractDialect(baseUrl: () => string): WebsiteDialect {
  return {
    mode: 'normal',
    input: (request) => {
      const value = request.body;
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {};
    },
    websiteId: (text) => {
      const id = /^\d{1,15}$/.test(text) ? Number(text) : undefined;
      return id !== undefined && id <= MAX_ID ? id : undefined;
    },
    listQuery: parseListQuery,
    pageUrl: () => `${baseUrl()}${COLLECTION}`,
    now: () => ({ date: new Date(), fraction: '000000' }),
    authorizeUpdate: async () => {},
    missing: notFound,
    assertStorable: () => {},
    written: (website) => presentWebsite(website, 'normal'),
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

function sendJson(reply: FastifyReply, status: number, payload: unknown): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(JSON.stringify(payload));
}

const hashOrNull = async (password: string | null) => (password === null ? null : hashPassword(password));

/** Validated update → stored changes: the clear-text password becomes a hash. */
async function storedChanges(values: Partial<ValidatedValues>): Promise<Partial<WebsiteValues>> {
  const { password, ...rest } = values;
  return password === undefined ? rest : { ...rest, passwordHash: await hashOrNull(password) };
}

export interface WebsiteHandlers {
  list: RouteHandler;
  create: RouteHandler;
  show: RouteHandler;
  update: RouteHandler;
  destroy: RouteHandler;
}

export function websiteHandlers(store: ServerStore, dialect: WebsiteDialect): WebsiteHandlers {
  const { mode } = dialect;
  const shape = recordShape(mode);
  const idOf = (request: FastifyRequest) => dialect.websiteId((request as ItemRequest).params.id);

  const list: RouteHandler = async (request, reply) => {
    const { id } = authenticatedAccount(request);
    const parsed = dialect.listQuery(request.query as Record<string, unknown>);
    // No stored domain holds a NUL or a lone surrogate (and PostgreSQL cannot even compare one).
    const { json, count, total } = isUnstorable(parsed.query.search?.text ?? '')
      ? { json: '[]', count: 0, total: 0 }
      : await store.listWebsites({ accountId: id, ...parsed.query }, shape);
    const page = { path: dialect.pageUrl(request), query: parsed.appends, page: parsed.page, perPage: parsed.perPage };
    const text = parsed.perPageText === undefined ? {} : { perPageText: parsed.perPageText };
    return reply.type(JSON_TYPE).send(presentPage(json, count, { ...page, ...text, total }));
  };

  const create: RouteHandler = async (request, reply) => {
    const owner = authenticatedAccount(request);
    const result = validateStore(dialect.input(request), mode);
    if (!result.ok) throw invalid(result.errors);
    const { domain, password, ...values } = result.value;
    const problems: string[] = [];
    if (await store.domainExists(domain)) problems.push(MESSAGES.domainTaken);
    if (owner.websiteLimit !== null && (await store.countWebsites(owner.id)) >= owner.websiteLimit) {
      problems.push(MESSAGES.tooManyWebsites);
    }
    if (problems.length > 0) throw invalid({ domain: problems });
    dialect.assertStorable(values);
    const time = dialect.now();
    try {
      const stored = { ...values, passwordHash: await hashOrNull(password) };
      const website = await store.insertWebsite(owner.id, domain, stored, time.date);
      return sendJson(reply, 201, { data: dialect.written(website, result.echo), status: 200 });
    } catch (error) {
      // Another request took the domain, or the last free place, while the password was being hashed.
      if (error instanceof DomainTakenError) throw invalid({ domain: [MESSAGES.domainTaken] });
      if (error instanceof WebsiteLimitError) {
        const taken = await store.domainExists(domain);
        throw invalid({ domain: [...(taken ? [MESSAGES.domainTaken] : []), MESSAGES.tooManyWebsites] });
      }
      throw error;
    }
  };

  const show: RouteHandler = async (request, reply) => {
    const id = idOf(request);
    const website = id === undefined ? undefined : await store.getWebsite(authenticatedAccount(request).id, id);
    if (!website) throw notFound();
    return sendJson(reply, 200, { data: presentWebsite(website, mode), status: 200 });
  };

  const update: RouteHandler = async (request, reply) => {
    const owner = authenticatedAccount(request);
    const input = dialect.input(request);
    await dialect.authorizeUpdate(request, input);
    const time = dialect.now();
    const result = validateUpdate(input, mode, time.date);
    if (!result.ok) throw invalid(result.errors);
    const id = idOf(request);
    const website = id === undefined ? undefined : await store.getWebsite(owner.id, id);
    if (id === undefined || !website) throw dialect.missing();
    if (missingPassword(result.value, website, mode)) throw invalid({ password: [MESSAGES.passwordRequired] });
    dialect.assertStorable(result.value);
    const updated = await store.updateWebsite(owner.id, id, await storedChanges(result.value), time.date);
    if (!updated) throw dialect.missing();
    const favorited = typeof result.value.favoritedAt === 'string' ? time : undefined;
    return sendJson(reply, 200, { data: dialect.written(updated, result.echo, favorited), status: 200 });
  };

  const destroy: RouteHandler = async (request, reply) => {
    const id = idOf(request);
    if (id === undefined || !(await store.deleteWebsite(authenticatedAccount(request).id, id))) throw notFound();
    return sendJson(reply, 200, { id, object: 'website', deleted: true, status: 200 });
  };

  return { list, create, show, update, destroy };
}

/** The contract's routes (quirks mode registers the same handlers through quirks-routes.ts). */
export function registerWebsiteRoutes(app: FastifyInstance, store: ServerStore, dialect: WebsiteDialect): void {
  const handlers = websiteHandlers(store, dialect);
  app.get(COLLECTION, handlers.list);
  app.post(COLLECTION, handlers.create);
  app.get(ITEM, handlers.show);
  app.put(ITEM, handlers.update);
  app.patch(ITEM, handlers.update);
  app.delete(ITEM, handlers.destroy);
}
