/**
 * Several installations for tests of `targets:` (issue 14): one reference
 * server per target, and a CLI workspace whose environment holds each
 * target's key as `SITESYNC_NAME_KEY` (SITESYNC_STAGING_KEY…), pins every
 * server's origin in SITESYNC_ALLOWED_ORIGINS (as an operator does: issue 33)
 * and holds no SITESYNC_API_KEY or SITESYNC_URL, since each target names its
 * own. Also the JSON Schema validators of the documents over targets.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach } from 'vitest';
import type { ServerOptions } from '../../src/server/index.js';
import { type Workspace, workspace } from '../cli/apply-support.js';
import { startTestServer, type TestServer } from './server.js';

export interface TargetServers<N extends string> {
  servers: Record<N, TestServer>;
  ws: Workspace;
  close(): Promise<void>;
}

/**
 * Starts a server per entry of `options`, in order; `keys` replaces the key a
 * target's variable holds (a wrong key for a target that must fail to connect).
 */
export async function startTargetServers<N extends string>(
  options: Record<N, ServerOptions>,
  keys: Partial<Record<N, string>> = {},
): Promise<TargetServers<N>> {
  const servers = {} as Record<N, TestServer>;
  const env: Record<string, string> = {};
  for (const name of Object.keys(options) as N[]) {
    servers[name] = await startTestServer(options[name]);
    env[keyVariable(name)] = keys[name] ?? servers[name].key;
  }
  const first = Object.values<TestServer>(servers)[0] as TestServer;
  env.SITESYNC_ALLOWED_ORIGINS = allowedOrigins(Object.values<TestServer>(servers));
  const ws = workspace(first, env);
  delete ws.env.SITESYNC_API_KEY;
  delete ws.env.SITESYNC_URL;
  const close = async () => {
    await Promise.all(Object.values<TestServer>(servers).map((server) => server.close()));
  };
  return { servers, ws, close };
}

/**
 * Fresh servers for every test of the file: the returned object holds each
 * server by its target's name and `ws`, valid inside tests (filled in
 * `beforeEach`, closed in `afterEach`); `setup` then writes the files.
 */
export function useTargetServers<N extends string>(
  options: Record<N, ServerOptions>,
  { keys = {}, setup }: { keys?: Partial<Record<N, string>>; setup?: () => void | Promise<void> } = {},
): Record<N, TestServer> & { ws: Workspace } {
  const fixture = {} as Record<N, TestServer> & { ws: Workspace };
  let close = async () => {};
  beforeEach(async () => {
    const started = await startTargetServers(options, keys);
    Object.assign(fixture, started.servers, { ws: started.ws });
    close = started.close;
    await setup?.();
  });
  afterEach(() => close());
  return fixture;
}

/** The variable a target's `key_env` names in these tests: `production` → SITESYNC_PRODUCTION_KEY. */
export function keyVariable(name: string): string {
  return `SITESYNC_${name.toUpperCase().replace(/-/g, '_')}_KEY`;
}

/** SITESYNC_ALLOWED_ORIGINS pinning these servers: what the operator of a job sets. */
export function allowedOrigins(servers: readonly { url: string }[]): string {
  return servers.map((server) => new URL(server.url).origin).join(',');
}

const ajv = new Ajv2020({ strict: true });
ajv.addSchema(JSON.parse(readFileSync('schemas/plan.schema.json', 'utf8')));
ajv.addSchema(JSON.parse(readFileSync('schemas/apply.schema.json', 'utf8')));

/** plan --format json over targets (schemas/plan-targets.schema.json). */
export const validTargetsDocument = ajv.compile(JSON.parse(readFileSync('schemas/plan-targets.schema.json', 'utf8')));
/** apply --format json over targets (schemas/apply-targets.schema.json). */
export const validApplyTargets = ajv.compile(JSON.parse(readFileSync('schemas/apply-targets.schema.json', 'utf8')));
