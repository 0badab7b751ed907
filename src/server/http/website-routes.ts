/**
 * The five website operations. Each handler validates (before any lookup, as
 * the real service does), talks to the store, and answers with the service's
 * envelopes. Quirks mode echoes sent values on writes and answers 500 for an
 * update of a missing website, as phpAnalytics v31 does.
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
import { HttpError, invalid, notFound, serverError } from './http-error.js';
import { parseListQuery } from './list-query.js';
import type { ServerMode } from './mode.js';
import { presentPage, presentWebsite, recordShape } from './present.js';
import { assertFitsColumns } from './quirks-validation.js';
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

interface Context {
  store: ServerStore;
  mode: ServerMode;
  /** Where page links point: the configured public URL, else the listening address; never the Host header. */
  baseUrl: () => string;
}

type ItemRequest = FastifyRequest<{ Params: { id: string } }>;

function websiteId(request: ItemRequest): number | undefined {
  const text = request.params.id;
  const id = /^\d{1,15}$/.test(text) ? Number(text) : undefined;
  return id !== undefined && id <= MAX_ID ? id : undefined;
}

function body(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
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

export function registerWebsiteRoutes(app: FastifyInstance, { store, mode, baseUrl }: Context): void {
  const shape = recordShape(mode);
  const present = (website: WebsiteRecord, echo: Record<string, unknown> = {}) =>
    mode === 'phpanalytics-v31' ? { ...presentWebsite(website, mode), ...echo } : presentWebsite(website, mode);

  app.get(COLLECTION, async (request, reply) => {
    const { id } = authenticatedAccount(request);
    const list = parseListQuery(request.query as Record<string, unknown>, mode);
    // No stored domain holds a NUL or a lone surrogate (and PostgreSQL cannot even compare one).
    const { json, count, total } = isUnstorable(list.query.search?.text ?? '')
      ? { json: '[]', count: 0, total: 0 }
      : await store.listWebsites({ accountId: id, ...list.query }, shape);
    const path = `${baseUrl()}${COLLECTION}`;
    const page = { path, query: list.appends, page: list.page, perPage: list.perPage, total };
    const quirksPage = mode === 'phpanalytics-v31' ? { perPageAsText: true } : {};
    return reply.type(JSON_TYPE).send(presentPage(json, count, { ...page, ...quirksPage }));
  });

  app.post(COLLECTION, async (request, reply) => {
    const owner = authenticatedAccount(request);
    const result = validateStore(body(request), mode);
    if (!result.ok) throw invalid(result.errors);
    const { domain, password, ...values } = result.value;
    const problems: string[] = [];
    if (await store.domainExists(domain)) problems.push(MESSAGES.domainTaken);
    if (owner.websiteLimit !== null && (await store.countWebsites(owner.id)) >= owner.websiteLimit) {
      problems.push(MESSAGES.tooManyWebsites);
    }
    if (problems.length > 0) throw invalid({ domain: problems });
    if (mode !== 'normal') assertFitsColumns(values);
    try {
      const website = await store.insertWebsite(
        owner.id,
        domain,
        { ...values, passwordHash: await hashOrNull(password) },
        new Date(),
      );
      return sendJson(reply, 201, { data: present(website, result.echo), status: 200 });
    } catch (error) {
      // Another request took the domain, or the last free place, while the password was being hashed.
      if (error instanceof DomainTakenError) throw invalid({ domain: [MESSAGES.domainTaken] });
      if (error instanceof WebsiteLimitError) {
        const taken = await store.domainExists(domain);
        throw invalid({ domain: [...(taken ? [MESSAGES.domainTaken] : []), MESSAGES.tooManyWebsites] });
      }
      throw error;
    }
  });

  app.get(ITEM, async (request: ItemRequest, reply) => {
    const id = websiteId(request);
    const website = id === undefined ? undefined : await store.getWebsite(authenticatedAccount(request).id, id);
    if (!website) throw notFound();
    return sendJson(reply, 200, { data: present(website), status: 200 });
  });

  const update = async (request: ItemRequest, reply: FastifyReply) => {
    const owner = authenticatedAccount(request);
    const now = new Date();
    // The real service's policy refuses any attempt to move a website to an account.
    if (mode === 'phpanalytics-v31' && Object.hasOwn(body(request), 'user_id')) {
      throw new HttpError(403, { message: MESSAGES.unauthorized });
    }
    const result = validateUpdate(body(request), mode, now);
    if (!result.ok) throw invalid(result.errors);
    const id = websiteId(request);
    const missing = (): HttpError => (mode === 'phpanalytics-v31' ? serverError() : notFound());
    const website = id === undefined ? undefined : await store.getWebsite(owner.id, id);
    if (id === undefined || !website) throw missing();
    if (missingPassword(result.value, website, mode)) throw invalid({ password: [MESSAGES.passwordRequired] });
    if (mode !== 'normal') assertFitsColumns(result.value);
    const updated = await store.updateWebsite(owner.id, id, await storedChanges(result.value), now);
    if (!updated) throw missing();
    const data = present(updated, result.echo);
    // A favourite set now is a Carbon on the real service's model: serialised as ISO 8601 with microseconds.
    if (mode === 'phpanalytics-v31' && typeof result.value.favoritedAt === 'string') {
      data.favorited_at = `${result.value.favoritedAt}.000000Z`;
    }
    return sendJson(reply, 200, { data, status: 200 });
  };
  app.put(ITEM, update);
  app.patch(ITEM, update);

  app.delete(ITEM, async (request: ItemRequest, reply) => {
    const id = websiteId(request);
    if (id === undefined || !(await store.deleteWebsite(authenticatedAccount(request).id, id))) throw notFound();
    return sendJson(reply, 200, { id, object: 'website', deleted: true, status: 200 });
  });
}
