/**
 * Alerts on transitions only: a condition of a target (drift, a conflict,
 * failing checks, healing stopped) fires when it appears and is resolved when
 * it goes; while it persists nothing is sent again until `renotifyMs` has
 * passed, unless its set of sites grows (a second site drifting while the
 * first still does: an update naming the new ones, as Alertmanager sends when
 * a group gains an alert; a shrinking set waits). `Alerts.update` decides and
 * returns the document to send, after recording the new state where the
 * coordination keeps it (memory, or the shared database: a restart or a
 * failover neither re-sends nor forgets a resolution); `webhooks.ts` delivers
 * the documents.
 */
import type { AlertState } from './coordination/port.js';

export const ALERT_KINDS = ['drift', 'conflict', 'check_failing', 'heal_stopped'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** The webhook body: a generic JSON document whose `text` also makes it a Slack message. */
export interface AlertDocument {
  text: string;
  source: 'sitesync watch';
  target: string;
  alert: AlertKind;
  status: 'firing' | 'resolved';
  /** A reminder of a condition that persists (after `renotifyMs`). */
  reminder: boolean;
  /** The sites that joined a condition already firing (an update), else absent. */
  added?: string[];
  /** The sites concerned (drift, conflict), or empty. */
  domains: string[];
  /** Why (a failing check's error), when there is one. */
  reason?: string;
  since: string;
  at: string;
  /** The target's status page (its class's section for drift and conflict), when `--public-url` is set. */
  url?: string;
}

const WHAT: Readonly<Record<AlertKind, string>> = {
  drift: 'drift',
  conflict: 'a conflict',
  check_failing: 'checks failing',
  heal_stopped: 'self-heal stopped after repeated failures',
};

export class Alerts {
  constructor(
    private readonly renotifyMs: number,
    private readonly state: AlertState,
  ) {}

  /** The condition's state now; returns the document to send, if any (its state already recorded). */
  async update(
    target: string,
    alert: AlertKind,
    condition: { active: boolean; domains?: readonly string[]; reason?: string },
    now: number,
  ): Promise<AlertDocument | undefined> {
    const known = this.state.get(target, alert);
    const domains = [...(condition.domains ?? [])];
    const base = { target, alert, domains, ...(condition.reason !== undefined && { reason: condition.reason }) };
    if (!condition.active) {
      if (known === undefined) return undefined;
      await this.state.set(target, alert, undefined);
      return documentOf({ ...base, status: 'resolved', reminder: false }, known.since, now);
    }
    if (known === undefined) {
      await this.state.set(target, alert, { since: now, lastSent: now, domains });
      return documentOf({ ...base, status: 'firing', reminder: false }, now, now);
    }
    const sent = new Set(known.domains);
    const added = domains.filter((domain) => !sent.has(domain));
    if (added.length === 0 && now - known.lastSent < this.renotifyMs) return undefined;
    await this.state.set(target, alert, { since: known.since, lastSent: now, domains });
    if (added.length > 0) return documentOf({ ...base, status: 'firing', reminder: false, added }, known.since, now);
    return documentOf({ ...base, status: 'firing', reminder: true }, known.since, now);
  }

  /** The conditions firing now, for /status. */
  firing(target: string): AlertKind[] {
    return ALERT_KINDS.filter((alert) => this.state.get(target, alert) !== undefined);
  }
}

function documentOf(
  fields: Omit<AlertDocument, 'text' | 'source' | 'since' | 'at'>,
  since: number,
  now: number,
): AlertDocument {
  const what = WHAT[fields.alert];
  const sites = fields.domains.length === 0 ? '' : `: ${listed(fields.domains)}`;
  const reason = fields.reason === undefined ? '' : ` (${fields.reason})`;
  const news = fields.added === undefined ? '' : ` (new: ${listed(fields.added)})`;
  const text =
    fields.status === 'resolved'
      ? `sitesync watch: resolved on ${fields.target}: ${what}`
      : `sitesync watch: ${fields.reminder ? 'still ' : ''}${what} on ${fields.target}${sites}${news}${reason}`;
  return {
    text,
    source: 'sitesync watch',
    ...fields,
    since: new Date(since).toISOString(),
    at: new Date(now).toISOString(),
  };
}

function listed(domains: readonly string[]): string {
  const shown = domains.slice(0, 10).join(', ');
  return domains.length > 10 ? `${shown} and ${domains.length - 10} more` : shown;
}
