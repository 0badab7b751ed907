/**
 * The library surface of sitesync: named exports only. The CLI is built from
 * the same pieces; anything not exported here is internal.
 */

export type { RequestStats, WebsitesApi, WebsiteUpdate } from './api/index.js';
export { type ClientOptions, createClient, resolveConnection } from './api/index.js';
export { type ApplyOptions, applyPlan } from './apply/apply-plan.js';
export {
  exportConfig,
  formatProblem,
  type LoadOptions,
  type LoadResult,
  loadConfig,
  loadConfigText,
  schemaText,
} from './config/index.js';
export type { ApplyResult, ChangeResult, Outcome } from './model/apply-result.js';
export type { ConfigPolicy, ConfigProblem, DesiredState } from './model/desired-state.js';
export { canonicalDomain } from './model/domain.js';
export { type ErrorCode, SitesyncError } from './model/errors.js';
export type * from './model/plan.js';
export { redact, Secret } from './model/secret.js';
export type { DesiredWebsite, FieldName, LiveWebsite, Privacy, WebsiteSettings } from './model/website.js';
export { checkSafety, explain, plan, policyFromConfig } from './plan/index.js';
export { renderHuman, renderJson, renderMarkdown } from './render/index.js';
export type { RunningServer, ServerOptions } from './server/index.js';
export { startServer } from './server-entry.js';
export { VERSION } from './version.js';
