/**
 * The one wording of a field's value and of "this field differs": the plan's
 * `a → b`, a saved plan's "was a, now b", the read-back's "wanted a, is b".
 * Values go through `FieldSpec.formatValue`, so every message shows the same
 * canonical form. Pure.
 */
import { FIELDS, type SettingName } from '../model/website.js';

/** How two values of one field relate: the planned change, a move since a plan, or a read-back mismatch. */
export type DifferenceWording = 'change' | 'was' | 'planned' | 'wanted';

const WORDING: Readonly<Record<DifferenceWording, (from: string, to: string) => string>> = {
  change: (from, to) => `${from} → ${to}`,
  was: (from, to) => `was ${from}, now ${to}`,
  planned: (from, to) => `planned ${from}, now ${to}`,
  wanted: (from, to) => `wanted ${from}, is ${to}`,
};

/** `privacy: was public, now private` (config name first, then the two values in the wording's order). */
export function fieldDifferenceText(name: SettingName, from: unknown, to: unknown, wording: DifferenceWording): string {
  const spec = FIELDS[name];
  return `${spec.configName}: ${WORDING[wording](spec.formatValue(from), spec.formatValue(to))}`;
}

/** `privacy: public` (a value alone: what the baseline said). */
export function fieldValueText(name: SettingName, value: unknown): string {
  const spec = FIELDS[name];
  return `${spec.configName}: ${spec.formatValue(value)}`;
}
