/**
 * The CEL environments rules are checked and run in (docs/config.md,
 * Policies): the documented variables and their types, and nothing else (no
 * function that reads a file, the clock or the network: CEL has none, and
 * none is registered). The only module that imports the CEL library.
 */
import { Environment } from '@marcbachmann/cel-js';
import type { PolicyKind } from '../../model/policies.js';

/** The settings as websites.yaml names them (a change's `before` and `after`). */
const SETTINGS = {
  privacy: 'string',
  email: 'bool',
  exclude_bots: 'bool',
  exclude_params: 'list<string>',
  exclude_ips: 'list<string>',
  favorite: 'bool',
} as const;

/** `site`: one website as configured, its settings resolved (own, then defaults, then the service's). */
const SITE = {
  domain: 'string',
  ...SETTINGS,
  ignore_changes: 'list<string>',
  has_password: 'bool',
} as const;

/** One planned change; `before` is absent on a create, `after` on a delete (test with `has(c.before)`). */
const CHANGE = {
  action: 'string',
  domain: 'string',
  class: 'string',
  target: 'string',
  fields: 'list<string>',
  before: 'Settings',
  after: 'Settings',
} as const;

/** `plan`: the changes (within the policy's match), and the same split by action. */
const PLAN = {
  changes: 'list<Change>',
  creates: 'list<Change>',
  updates: 'list<Change>',
  deletes: 'list<Change>',
} as const;

/** The fields of each type, for "did you mean" (the checker names the type of the value it indexed). */
export const TYPE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Site: Object.keys(SITE),
  Settings: Object.keys(SETTINGS),
  Change: Object.keys(CHANGE),
  Plan: Object.keys(PLAN),
};

/** The variables of each kind of rule; `target` is the target's name ("" without targets). */
export const VARIABLES: Readonly<Record<PolicyKind, readonly string[]>> = {
  site: ['site', 'target'],
  plan: ['plan', 'target'],
};

/** Functions and macros CEL offers on these values: an unknown name gets "did you mean". */
export const FUNCTION_NAMES = [
  'size',
  'startsWith',
  'endsWith',
  'contains',
  'lowerAscii',
  'upperAscii',
  'trim',
  'indexOf',
  'lastIndexOf',
  'substring',
  'matches',
  'split',
  'join',
  'all',
  'exists',
  'exists_one',
  'map',
  'filter',
  'has',
  'int',
  'string',
  'double',
] as const;

/**
 * Structural limits at parse time (the library's own): a rule is a short
 * expression, so anything near these is a mistake or an attack.
 */
const LIMITS = { maxAstNodes: 2_000, maxDepth: 64, maxListElements: 1_000, maxMapEntries: 1_000 };

function environment(kind: PolicyKind): Environment {
  const env = new Environment({ limits: LIMITS })
    .registerType('Settings', { fields: SETTINGS })
    .registerVariable('target', 'string');
  if (kind === 'site') return env.registerType('Site', { fields: SITE }).registerVariable('site', 'Site');
  return env
    .registerType('Change', { fields: CHANGE })
    .registerType('Plan', { fields: PLAN })
    .registerVariable('plan', 'Plan');
}

const environments: Partial<Record<PolicyKind, Environment>> = {};

/** One environment per kind, made on first use and shared (registering is done by then). */
export function environmentOf(kind: PolicyKind): Environment {
  environments[kind] ??= environment(kind);
  return environments[kind];
}
