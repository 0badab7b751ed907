/**
 * Creating a website without ever creating a duplicate. A POST is sent once;
 * after an ambiguous failure (no answer, a reset, a 5xx) the domain is looked
 * up (`search` + exact canonical match) and the site is created again only if
 * it is absent. A success status without a readable record is looked up too,
 * but never sent again (`notCreated`). Then the returned record is compared
 * with what was sent, and exactly the fields the service did not store (the
 * real service ignores `favorited_at` on create; older versions store NULL
 * privacy) are sent in one follow-up update.
 */
import { isValidServiceDomain } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import type { DesiredWebsite, LiveWebsite } from '../model/website.js';
import { mismatchedFields, pickSettings } from './compare.js';
import type { CallResult } from './requester.js';
import type { WebsiteUpdate } from './types.js';
import { encodeWrite } from './wire.js';

export interface CreateSteps {
  post(form: string): Promise<CallResult>;
  decode(result: CallResult): LiveWebsite;
  fail(result: CallResult, domainNote?: string): SitesyncError;
  find(): Promise<LiveWebsite | undefined>;
  update(id: number, update: WebsiteUpdate): Promise<LiveWebsite>;
  pause(attempt: number, reason: string): Promise<void>;
  now(): Date;
  maxAttempts: number;
  label: string;
}

/**
 * Added only to a 422 that says the domain is taken (the service's English
 * "has already been taken"; the website limit names `domain` too) when no site
 * of this account has the domain: otherwise the collision is with our own site.
 */
const TAKEN_NOTE = 'domains are unique across all accounts, so another account may own it';
const isTakenMessage = (error: SitesyncError): boolean => /already been taken/i.test(error.message);

/**
 * What a POST attempt established. `unreadable`: a success status whose body
 * is not a website record (what was wrong with it).
 */
type Outcome =
  | { created: LiveWebsite }
  | { ambiguous: string; failure?: SitesyncError; unreadable?: { status: number; problem: string } };

export async function createWebsite(desired: DesiredWebsite, steps: CreateSteps): Promise<LiveWebsite> {
  const created = await createOnce(desired, steps);
  const missing = mismatchedFields(desired.settings, desired.password !== undefined, created);
  if (missing.length === 0) return created;
  const update: WebsiteUpdate = { settings: pickSettings(desired.settings, missing) };
  if (missing.includes('password') && desired.password) update.password = desired.password;
  return steps.update(created.id, update);
}

async function createOnce(desired: DesiredWebsite, steps: CreateSteps): Promise<LiveWebsite> {
  const form = encodeWrite(desired.domain, desired.settings, {
    password: desired.password,
    now: steps.now(),
    create: true,
  });
  const note = isValidServiceDomain(desired.domain) ? TAKEN_NOTE : undefined;
  let uncertain = false; // an earlier attempt may have created the site
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptPost(form, steps, note, uncertain);
    if ('created' in outcome) return outcome.created;
    uncertain = true;
    const found = await lookUp(steps, outcome.ambiguous);
    if (found) return found;
    if (outcome.failure) throw outcome.failure;
    if (outcome.unreadable) throw notCreated(desired, steps, outcome.unreadable);
    if (attempt >= steps.maxAttempts) {
      throw new SitesyncError(
        'server',
        `${steps.label}: ${outcome.ambiguous}, ${attempt} times; ${desired.domain} was not created`,
      );
    }
    await steps.pause(attempt, outcome.ambiguous);
  }
}

async function attemptPost(
  form: string,
  steps: CreateSteps,
  note: string | undefined,
  uncertain: boolean,
): Promise<Outcome> {
  let result: CallResult;
  try {
    result = await steps.post(form);
  } catch (error) {
    if (error instanceof SitesyncError && error.code === 'network') return { ambiguous: error.message };
    throw error;
  }
  const { status } = result.response;
  if (status >= 200 && status < 300) {
    try {
      return { created: steps.decode(result) };
    } catch (error) {
      // Maybe created, but the answer is unreadable: the lookup will tell what was stored.
      if (error instanceof SitesyncError && error.code === 'protocol') {
        const problem = String(error.details?.problem ?? error.message);
        return { ambiguous: error.message, unreadable: { status, problem } };
      }
      throw error;
    }
  }
  if (status >= 500) return { ambiguous: `answered ${status}` };
  const failure = steps.fail(result);
  // "Already taken" right after an attempt that may have gone through is most likely our own site.
  if (uncertain && failure.code === 'validation') return { ambiguous: failure.message, failure };
  if (note === undefined || failure.code !== 'validation' || !isTakenMessage(failure)) throw failure;
  const own = await steps.find();
  if (own === undefined) throw steps.fail(result, note);
  throw steps.fail(
    result,
    `website ${own.id} of this account already has this domain: made by another writer during this run? Run plan again`,
  );
}

/**
 * A success status without a website record, and the lookup does not find the
 * site: whatever answered is not behaving like the service (a proxy, a wrong
 * URL), so the POST is not sent again: a resend would most likely get the same
 * answer, and each one carries the site's password.
 */
function notCreated(
  desired: DesiredWebsite,
  steps: CreateSteps,
  unreadable: { status: number; problem: string },
): SitesyncError {
  const password = desired.password === undefined ? '' : ', and each attempt carries the website password';
  return new SitesyncError(
    'protocol',
    `${steps.label} → ${unreadable.status} without a website record (${unreadable.problem}); ${desired.domain} is not in the account, so it was not created; not sent again: the service answered success${password}. Is --url the service's API?`,
    { status: unreadable.status, method: 'POST', reason: 'unreadable_success' },
  );
}

async function lookUp(steps: CreateSteps, reason: string): Promise<LiveWebsite | undefined> {
  try {
    return await steps.find();
  } catch (error) {
    if (!(error instanceof SitesyncError)) throw error;
    if (error.code === 'interrupted') {
      throw new SitesyncError(
        'interrupted',
        `interrupted: ${steps.label}: ${reason}; whether the site was created is unknown; run plan again to see`,
        error.details ? { ...error.details } : undefined,
        { cause: error },
      );
    }
    throw new SitesyncError(
      error.code,
      `${steps.label}: ${reason}; checking whether the site was created failed too (${error.message}); run plan again to see`,
      error.details ? { ...error.details } : undefined,
      { cause: error },
    );
  }
}
