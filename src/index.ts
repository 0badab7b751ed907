/**
 * The library surface of sitesync (docs/library.md, which states what semver
 * covers): named exports only. The CLI runs the same engine; anything not
 * exported here is internal.
 */

export type { Acknowledgements } from './apply/acknowledge.js';
export type { Journal, JournalEntry } from './apply/journal.js';
export { formatProblem, schemaText } from './config/index.js';
export type { Answer, ApplyOutcome, ApplyRefusal } from './engine/apply-target.js';
export type { EngineEvent, EventSink, LogLevel } from './engine/context.js';
export type { Exported } from './engine/export-sites.js';
export type { TargetSettled } from './engine/plan-targets.js';
export type { Settled } from './engine/pool.js';
export {
  type ApplyOptions,
  apply,
  applyTargets,
  type CallOptions,
  type ConfigOptions,
  type ConnectOptions,
  exportSites,
  type PlanOptions,
  type PlanResult,
  plan,
  planTargets,
  type TargetsOptions,
  type Validation,
  validate,
} from './library.js';
export type { ApplyResult, ChangeResult, Divergence, Outcome } from './model/apply-result.js';
export type { ConfigProblem, TargetDeclaration } from './model/desired-state.js';
export { canonicalDomain } from './model/domain.js';
export { type ErrorCode, isSitesyncError, SitesyncError } from './model/errors.js';
export type * from './model/plan.js';
export { redact, Secret } from './model/secret.js';
export type { FieldName, LiveWebsite, Privacy, WebsiteSettings } from './model/website.js';
export { renderHuman, renderJson, renderMarkdown } from './render/index.js';
export type { RunningServer, ServerOptions } from './server/index.js';
export { startServer } from './server-entry.js';
export { VERSION } from './version.js';
