/** Applies a plan to a list of live sites in memory, as a well-behaved service would. For property tests. */
import type { Plan } from '../../src/model/plan.js';
import type { DesiredWebsite, LiveWebsite, SettingName, WebsiteSettings } from '../../src/model/website.js';

export function applyInMemory(
  plan: Plan,
  live: readonly LiveWebsite[],
  desired: readonly DesiredWebsite[],
): LiveWebsite[] {
  const byId = new Map(live.map((site) => [site.id, { ...site, settings: { ...site.settings } }]));
  let nextId = Math.max(0, ...live.map((site) => site.id)) + 1;
  for (const change of plan.changes) {
    switch (change.action) {
      case 'delete':
        byId.delete(change.id);
        break;
      case 'create': {
        const settings: Partial<WebsiteSettings> = {};
        for (const field of change.fields) {
          if (field.field !== 'password' && !field.writeOnly) Object.assign(settings, { [field.field]: field.after });
        }
        const wanted = desired.find((site) => site.domain === change.domain);
        const id = nextId++;
        byId.set(id, { id, domain: change.domain, settings, hasPassword: wanted?.password !== undefined });
        break;
      }
      case 'update': {
        const site = byId.get(change.id);
        if (site === undefined) throw new Error(`update of unknown id ${change.id}`);
        for (const field of change.fields) {
          if (field.field === 'password') site.hasPassword = true;
          else if (site.settings[field.field as SettingName] !== undefined) {
            Object.assign(site.settings, { [field.field]: field.after });
          }
        }
        break;
      }
    }
  }
  return [...byId.values()];
}
