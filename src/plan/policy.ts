/**
 * The planner's policy from the configuration's policy plus command-line
 * choices, and what --sync-write-only selects. Pure: the policy is data, the
 * planner asks `writeOnlyResend` which write-only values of a site to re-send.
 */
import type { ConfigPolicy } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { isValidGlob, matchesAny } from '../model/glob.js';
import type { PlanPolicy } from '../model/plan.js';
import { CONFIG_FIELD_NAMES, type FieldName, fieldFromConfigName } from '../model/website.js';

/** What `--sync-write-only [FIELD|DOMAIN|GLOB]...` selects; an empty list means every one. */
export interface WriteOnlySync {
  fields: FieldName[];
  sites: string[];
}

export interface CliPolicy {
  only?: readonly string[];
  skip?: readonly string[];
  /** `true`: every write-only value of every site (the bare flag). */
  syncWriteOnly?: boolean | WriteOnlySync;
  /** Today, YYYY-MM-DD in UTC, from the CLI's clock: when ignore_changes rules expire. */
  today?: string;
  /** --unlisted-is-drift: on here, or by `unlisted_is_drift: true` in the configuration. */
  unlistedIsDrift?: boolean;
}

export function policyFromConfig(config: ConfigPolicy, cli: CliPolicy = {}): PlanPolicy {
  const sync = cli.syncWriteOnly ?? false;
  const policy: PlanPolicy = {
    prune: config.prune,
    manage: { include: [...config.manage.include], exclude: [...config.manage.exclude] },
    protect: [...config.protect],
    limits: { maxDeletes: config.limits.maxDeletes, maxChangePercent: config.limits.maxChangePercent },
    only: [...(cli.only ?? [])],
    skip: [...(cli.skip ?? [])],
    syncWriteOnly: sync !== false,
  };
  if (typeof sync === 'object' && sync.fields.length > 0) policy.syncWriteOnlyFields = [...sync.fields];
  if (typeof sync === 'object' && sync.sites.length > 0) policy.syncWriteOnlySites = [...sync.sites];
  if (cli.today !== undefined) policy.today = cli.today;
  if (config.unlistedIsDrift === true || cli.unlistedIsDrift === true) policy.unlistedIsDrift = true;
  return policy;
}

/**
 * The values of `--sync-write-only` (each may be a comma-separated list):
 * field names are a fixed set (websites.yaml's: `password`, `exclude_params`,
 * ...), so a word that is one is a field, and anything else is a domain or
 * glob. `*` (the bare flag's value) or an empty value selects nothing narrower.
 */
export function parseWriteOnlySync(values: readonly string[]): WriteOnlySync {
  const fields: FieldName[] = [];
  const sites: string[] = [];
  for (const word of values.flatMap((value) => value.split(','))) {
    const token = word.trim();
    if (token === '' || token === '*') continue; // the bare flag: no narrowing
    const field = fieldFromConfigName(token.toLowerCase());
    if (field !== undefined) {
      if (!fields.includes(field)) fields.push(field);
    } else if (isValidGlob(token)) {
      if (!sites.includes(token.toLowerCase())) sites.push(token.toLowerCase());
    } else {
      const known = Object.values(CONFIG_FIELD_NAMES).join(', ');
      throw new SitesyncError(
        'usage',
        `--sync-write-only ${JSON.stringify(token)}: neither a field (${known}) nor a domain or glob (letters, digits, . - _ * ?)`,
      );
    }
  }
  return { fields, sites };
}

/** Whether one write-only field of one site is re-sent. */
export type Resend = (field: FieldName) => boolean;

const NONE: Resend = () => false;
const EVERY: Resend = () => true;

/** For a site, which of its write-only values --sync-write-only re-sends (none without the flag). */
export function writeOnlyResend(policy: PlanPolicy): (domain: string) => Resend {
  if (!policy.syncWriteOnly) return () => NONE;
  const fields = policy.syncWriteOnlyFields ?? [];
  const resend: Resend = fields.length === 0 ? EVERY : (field) => fields.includes(field);
  const sites = policy.syncWriteOnlySites ?? [];
  if (sites.length === 0) return () => resend;
  return (domain) => (matchesAny(domain, sites) ? resend : NONE);
}
