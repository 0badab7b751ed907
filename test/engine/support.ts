/**
 * The engine called as its callers call it (no CLI): a request with the
 * defaults a command line gives, a context whose events are kept, a plan made
 * and signed as `plan --out` makes it, and an apply of the configuration or of
 * that saved plan, against a reference server in-process.
 */
import { afterEach } from 'vitest';
import { type ApplyOutcome, type ApplyRequest, applyTarget } from '../../src/engine/apply-target.js';
import type { EngineContext, EngineEvent } from '../../src/engine/context.js';
import { type PlanRequest, planTarget } from '../../src/engine/plan-target.js';
import { runRequest } from '../../src/engine/request.js';
import type { SavedPlan } from '../../src/plan/index.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';

export interface EngineFixture {
  server: TestServer;
  dir: string;
  context: EngineContext & { seen: EngineEvent[] };
}

/** A reference server (closed after the test) and a context over `dir`, with `env` beside the URL and key. */
export async function engineFixture(dir: string, env: Record<string, string> = {}): Promise<EngineFixture> {
  const server = await startTestServer();
  servers.push(server);
  const seen: EngineEvent[] = [];
  const context = {
    env: { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key, ...env },
    cwd: dir,
    events: (event: EngineEvent) => seen.push(event),
    seen,
  };
  return { server, dir, context };
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Unpaced (the test server has no throttle), the configuration in websites.yaml. */
const base = () => runRequest({ rateLimit: 1_000_000 });

export function planRequest(overrides: Partial<PlanRequest> = {}): PlanRequest {
  return { ...base(), syncWriteOnly: false, unlistedIsDrift: false, explain: false, ...overrides };
}

export function applyRequest(overrides: Partial<ApplyRequest> = {}): ApplyRequest {
  return {
    ...base(),
    parallelism: 1,
    acks: { allowDelete: [] },
    syncWriteOnly: false,
    unlistedIsDrift: false,
    ...overrides,
  };
}

/** `sitesync plan --out plan.json`: the signed plan file's content. */
export async function savedPlan(fixture: EngineFixture, overrides: Partial<PlanRequest> = {}): Promise<SavedPlan> {
  return (await planTarget(planRequest(overrides), fixture.context)).saved;
}

/** `sitesync apply plan.json` (no question: a reviewed plan is applied as it is). */
export function applySaved(
  fixture: EngineFixture,
  saved: SavedPlan,
  overrides: Partial<ApplyRequest> = {},
): Promise<ApplyOutcome> {
  return applyTarget(applyRequest(overrides), fixture.context, {}, { saved, label: 'plan.json' });
}

/** The live domains, sorted, read over HTTP. */
export async function liveDomains(server: TestServer): Promise<string[]> {
  const listed = await client(server)('GET', '/api/v1/websites?per_page=100');
  return listed.body.data.map((site: { domain: string }) => site.domain).sort();
}
