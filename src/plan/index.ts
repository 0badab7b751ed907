/** The planning layer's public surface: pure functions over plain data. */

export { classifyPlan, countClasses, createClass, deleteClass, fieldClass, withBaselineWrites } from './baseline.js';
export { type ExplainOutcome, explain, type FieldExplanation, type SiteExplanation } from './explain.js';
export { fingerprintLive, planDigest } from './fingerprint.js';
export { plan, uncreatableDomains } from './planner.js';
export {
  type CliPolicy,
  parseWriteOnlySync,
  policyFromConfig,
  type Resend,
  type WriteOnlySync,
  writeOnlyResend,
} from './policy.js';
export { type PlanDifference, type Rederived, rederive } from './rederive.js';
export { checkSafety, MIN_SITES_FOR_PERCENT, type SafetyContext } from './safety.js';
export {
  type ApplyTarget,
  admissionRefusal,
  createSavedPlan,
  fingerprintsOf,
  liveCountOf,
  parseSavedPlan,
  type RecordedLiveSite,
  SAVED_PLAN_KIND,
  SAVED_PLAN_VERSION,
  type SavedPlan,
  type SiteFingerprint,
  savedPlanProblem,
  serializeSavedPlan,
  signatureVerifies,
  signSavedPlan,
} from './saved-plan.js';
export {
  createSavedPlanSet,
  parsePlanFile,
  SAVED_PLAN_SET_KIND,
  type SavedPlanPart,
  type SavedPlanSet,
  savedPlanOf,
  serializeSavedPlanSet,
} from './saved-plan-set.js';
export { type Scope, scopeOf } from './scope.js';
export { type UnsentWrite, unsentWrites } from './unsent-writes.js';
