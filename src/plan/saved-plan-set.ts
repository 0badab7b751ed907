/**
 * A saved plan over several targets (`plan --out` when the configuration
 * declares targets): one part per target, each the single-target SavedPlan
 * (saved-plan.ts, signed with that target's own key) plus the target's name.
 * `apply plan.json` admits, checks and applies each part on its own. A file
 * made without targets keeps the single-target shape.
 */
import { SitesyncError } from '../model/errors.js';
import { jsonDocument } from '../model/text.js';
import { parseSavedPlan, type SavedPlan, savedPlanProblem } from './saved-plan.js';

export const SAVED_PLAN_SET_KIND = 'sitesync-plan-targets';
export const SAVED_PLAN_SET_VERSION = 1;

/** One target's part: its saved plan, and which target it is for. */
export type SavedPlanPart = { name: string } & SavedPlan;

export interface SavedPlanSet {
  formatVersion: 1;
  kind: 'sitesync-plan-targets';
  targets: SavedPlanPart[];
}

export function createSavedPlanSet(parts: readonly { name: string; saved: SavedPlan }[]): SavedPlanSet {
  return {
    formatVersion: SAVED_PLAN_SET_VERSION,
    kind: SAVED_PLAN_SET_KIND,
    targets: parts.map(({ name, saved }) => ({ name, ...saved })),
  };
}

/** The part without its name: the SavedPlan exactly as signed. */
export function savedPlanOf(part: SavedPlanPart): SavedPlan {
  const { name: _name, ...saved } = part;
  return saved;
}

export function serializeSavedPlanSet(set: SavedPlanSet): string {
  return jsonDocument(set);
}

/** A plan file of either shape; `file` names it in messages. */
export function parsePlanFile(text: string, file: string): { single: SavedPlan } | { set: SavedPlanSet } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { single: parseSavedPlan(text, file) };
  }
  // Anything but a set (another kind, no object at all) is read, and refused, as a single-target plan.
  const record = data as { kind?: unknown; formatVersion?: unknown; targets?: unknown } | null;
  if (record?.kind !== SAVED_PLAN_SET_KIND) return { single: parseSavedPlan(text, file) };
  const problem = setProblem(record);
  if (problem !== undefined) throw new SitesyncError('usage', `${file}: not a valid sitesync plan file: ${problem}`);
  return { set: data as SavedPlanSet };
}

function setProblem(data: { formatVersion?: unknown; targets?: unknown }): string | undefined {
  if (data.formatVersion !== SAVED_PLAN_SET_VERSION) {
    return `formatVersion ${JSON.stringify(data.formatVersion)} is not supported (this sitesync reads ${SAVED_PLAN_SET_VERSION})`;
  }
  if (!Array.isArray(data.targets) || data.targets.length === 0) return 'targets must be a non-empty list';
  const names = new Set<string>();
  for (const [index, part] of data.targets.entries()) {
    if (part === null || typeof part !== 'object' || typeof part.name !== 'string' || part.name === '') {
      return `targets[${index}]: name missing`;
    }
    if (names.has(part.name)) return `targets[${index}]: target ${part.name} appears twice`;
    names.add(part.name);
    const problem = savedPlanProblem(savedPlanOf(part as SavedPlanPart));
    if (problem !== undefined) return `targets[${index}] (${part.name}): ${problem}`;
  }
  return undefined;
}
