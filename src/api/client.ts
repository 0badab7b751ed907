/**
 * `ApiClient`: the `WebsitesApi` over HTTP. Each method reads like the issue:
 * list (complete or an error), get, find by exact canonical domain, create
 * (never a duplicate; follow-up update for what the service did not store),
 * update (only what changes; a site deleted out of band is `not_found`), and
 * delete (already gone = success). Wire details live in wire.ts, pacing and
 * retries in requester.ts. A read record whose id and domain are sound but
 * one setting is unreadable keeps that setting unknown and is reported once
 * (`notice`): one odd value must not fail every command of the account.
 */

import { canonicalDomain, searchSpellings } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import type { DesiredWebsite, LiveWebsite } from '../model/website.js';
import { ACCOUNT_PATH, type AccountAllowance, decodeAccountAllowance } from './account.js';
import { mismatchedFields } from './compare.js';
import { createWebsite } from './create.js';
import { errorForResponse, isLoginPage } from './http-errors.js';
import { findFirst, listEverything, listNamed, PAGE_SIZE } from './listing.js';
import type { CallOptions, Requester } from './requester.js';
import type { HttpRequest, HttpResponse } from './transport.js';
import type { Cancellable, Pacing, RequestStats, WebsitesApi, WebsiteUpdate } from './types.js';
import {
  decodeListPage,
  decodeRecordBody,
  encodeListQuery,
  encodeWrite,
  type OnUnreadable,
  parseJsonBody,
  type UnreadableSetting,
} from './wire.js';

export const WEBSITES_PATH = '/api/v1/websites';
/** The smallest `per_page` the service takes: a count needs only `meta.total`. */
const SMALLEST_PAGE = 10;

export interface ClientParts {
  url: string;
  requester: Requester;
  stats: RequestStats;
  pacing: Pacing;
  concurrency: number;
  now: () => Date;
  notice?: ((line: string) => void) | undefined;
}

export class ApiClient implements WebsitesApi {
  readonly url: string;
  readonly stats: RequestStats;
  readonly pacing: Pacing;
  readonly #parts: ClientParts;
  /** Unreadable values already reported: a listing read again (or plan, then apply) says it once. */
  readonly #reported = new Set<string>();
  readonly #unreadable: OnUnreadable = (problem) => this.#reportUnreadable(problem);

  constructor(parts: ClientParts) {
    this.url = parts.url;
    this.stats = parts.stats;
    this.pacing = parts.pacing;
    this.#parts = parts;
  }

  listWebsites(options: Cancellable = {}): Promise<LiveWebsite[]> {
    return listEverything(
      (page, signal) => this.#page(encodeListQuery(page, PAGE_SIZE), signal),
      this.#parts.concurrency,
      options.signal,
    );
  }

  listWebsitesNamed(domains: readonly string[], options: Cancellable = {}): Promise<LiveWebsite[]> {
    return listNamed(
      (search, page, signal) => this.#page(encodeListQuery(page, PAGE_SIZE, search), signal),
      domains,
      this.#parts.concurrency,
      options.signal,
    );
  }

  async readAccount(options: Cancellable = {}): Promise<AccountAllowance | undefined> {
    const request: HttpRequest = { method: 'GET', path: ACCOUNT_PATH };
    const result = await this.#send(request, options);
    if (result.response.status === 404) return undefined;
    return decodeAccountAllowance(this.#json(request, result));
  }

  async countWebsites(options: Cancellable = {}): Promise<number | undefined> {
    return (await this.#page(encodeListQuery(1, SMALLEST_PAGE), options.signal)).total;
  }

  async getWebsite(id: number, options: Cancellable = {}): Promise<LiveWebsite | undefined> {
    const request: HttpRequest = { method: 'GET', path: `${WEBSITES_PATH}/${id}` };
    const result = await this.#send(request, options);
    if (result.response.status === 404) return undefined;
    return decodeRecordBody(this.#json(request, result), this.#label(request), this.#unreadable);
  }

  async findWebsite(domain: string, options: Cancellable = {}): Promise<LiveWebsite | undefined> {
    const wanted = canonicalDomain(domain);
    // `search` is a substring match: keep only the exact domain, under each spelling the service may have stored.
    for (const spelling of searchSpellings(wanted)) {
      const found = await findFirst(
        (page, signal) => this.#page(encodeListQuery(page, PAGE_SIZE, spelling), signal),
        (site) => canonicalDomain(site.domain) === wanted,
        options.signal,
      );
      if (found) return found;
    }
    return undefined;
  }

  createWebsite(desired: DesiredWebsite, options: Cancellable = {}): Promise<LiveWebsite> {
    const post: HttpRequest = { method: 'POST', path: WEBSITES_PATH };
    return createWebsite(desired, {
      post: (form) => this.#send({ ...post, form }, options),
      decode: (result) => decodeRecordBody(this.#json(post, result), this.#label(post)),
      fail: (result, note) => this.#error(post, result, note),
      find: () => this.findWebsite(desired.domain, options),
      update: (id, update) => this.updateWebsite(id, update, options),
      pause: (attempt, reason) => this.#parts.requester.pause(attempt, reason, options.signal),
      now: this.#parts.now,
      maxAttempts: this.#parts.requester.maxAttempts,
      label: this.#label(post),
    });
  }

  async updateWebsite(id: number, update: WebsiteUpdate, options: Cancellable = {}): Promise<LiveWebsite> {
    const form = encodeWrite(undefined, update.settings, {
      password: update.password,
      now: this.#parts.now(),
      create: false,
    });
    const request: HttpRequest = { method: 'PUT', path: `${WEBSITES_PATH}/${id}`, form };
    let result = await this.#send(request, { ...options, retryServerError: false });
    const { status } = result.response;
    if (status === 404 || status === 500) {
      // The real service answers 500 (v31) or 404 for a site deleted out of band: look before blaming the server.
      const live = await this.getWebsite(id, options);
      if (live === undefined) throw this.#gone(id, request);
      if (status === 500) result = await this.#send(request, { ...options, retryServerError: true });
    }
    let unreadableEcho = false;
    const echo = decodeRecordBody(this.#json(request, result), this.#label(request), () => {
      unreadableEcho = true;
    });
    if (!unreadableEcho && mismatchedFields(update.settings, false, echo).length === 0) return echo;
    // The answer disagrees with what was sent (or cannot be read): the stored state (a GET) is the truth, not the echo.
    return (await this.getWebsite(id, options)) ?? Promise.reject(this.#gone(id, request));
  }

  async deleteWebsite(id: number, options: Cancellable = {}): Promise<boolean> {
    const request: HttpRequest = { method: 'DELETE', path: `${WEBSITES_PATH}/${id}` };
    const result = await this.#send(request, options);
    if (result.response.status === 404) return result.attempts > 1; // gone: by an earlier attempt of ours, or before
    this.#json(request, result);
    return true;
  }

  close(): Promise<void> {
    return this.#parts.requester.transport.close();
  }

  async #page(query: string, signal: AbortSignal | undefined) {
    const request: HttpRequest = { method: 'GET', path: `${WEBSITES_PATH}?${query}` };
    const result = await this.#send(request, { signal });
    return decodeListPage(this.#json(request, result), this.#label(request), this.#unreadable);
  }

  #reportUnreadable(problem: UnreadableSetting): void {
    const value = JSON.stringify(problem.value) ?? String(problem.value);
    const key = `${problem.id} ${problem.field} ${value}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#parts.notice?.(
      `website ${problem.domain} (${problem.id}): ${problem.field} ${value.slice(0, 80)} cannot be read; it is not compared (the rest of the listing is used)`,
    );
  }

  #send(request: HttpRequest, options: CallOptions) {
    return this.#parts.requester.call(request, options);
  }

  /** The parsed body of a success; any other answer becomes its error. */
  #json(request: HttpRequest, result: { response: HttpResponse; attempts: number }): unknown {
    const { response } = result;
    if (response.status < 200 || response.status >= 300 || isLoginPage(response)) throw this.#error(request, result);
    return parseJsonBody(response, `${this.#label(request)} → ${response.status}`);
  }

  #error(request: HttpRequest, result: { response: HttpResponse; attempts: number }, domainNote?: string) {
    return errorForResponse(result.response, {
      label: this.#label(request),
      method: request.method,
      path: request.path,
      origin: this.#parts.requester.transport.origin,
      attempts: result.attempts,
      ...(domainNote !== undefined && { domainNote }),
    });
  }

  #label(request: HttpRequest): string {
    return this.#parts.requester.transport.label(request);
  }

  #gone(id: number, request: HttpRequest): SitesyncError {
    return new SitesyncError('not_found', `website ${id} no longer exists (deleted outside sitesync?)`, {
      status: 404,
      method: request.method,
      path: request.path,
    });
  }
}
