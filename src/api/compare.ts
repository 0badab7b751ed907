/**
 * Which of the fields we sent does a returned record contradict? Used after a
 * create (to send one follow-up update for what the service did not store) and
 * after an update (to prefer a GET over an echo that disagrees). A field the
 * record does not show (write-only there) cannot contradict anything.
 */
import {
  FIELDS,
  type FieldName,
  type LiveWebsite,
  SETTING_NAMES,
  sameValue,
  type WebsiteSettings,
} from '../model/website.js';

export function mismatchedFields(
  sent: Partial<WebsiteSettings>,
  sentPassword: boolean,
  live: LiveWebsite,
): FieldName[] {
  const fields: FieldName[] = SETTING_NAMES.filter((name) => {
    const wanted = sent[name];
    const stored = live.settings[name];
    if (wanted === undefined || stored === undefined || sameValue(wanted, stored)) return false;
    // Equal as given means equal (`stored` is canonical); only a difference is worth canonicalising `wanted` for.
    return !sameValue(FIELDS[name].canonical(wanted), stored);
  });
  if (sentPassword && live.hasPassword === false) fields.push('password');
  return fields;
}

/** The subset of `settings` named in `fields`. */
export function pickSettings(settings: Partial<WebsiteSettings>, fields: FieldName[]): Partial<WebsiteSettings> {
  const picked: Partial<WebsiteSettings> = {};
  for (const name of SETTING_NAMES) {
    if (fields.includes(name) && settings[name] !== undefined)
      (picked as Record<string, unknown>)[name] = settings[name];
  }
  return picked;
}
