/**
 * Live websites → canonical websites.yaml text (used by `sitesync export`).
 * Loading the result gives back the live settings: password-protected sites
 * get a `${SITESYNC_PASSWORD_<DOMAIN>}` reference (the service never reveals
 * passwords), and fields the server does not return are left out and named
 * in the header. What the service accepted but `validate` refuses (an IP
 * entry such as `192.168.001.1`) is exported as is, with a comment on its
 * line and a warning: never silently an invalid file.
 */
import { byDomain, indexLiveByDomain } from '../model/domain.js';
import { FIELDS, type LiveWebsite, SETTING_NAMES, type WebsiteSettings } from '../model/website.js';
import { isIpOrCidr } from './ip.js';
import { type SerializableWebsite, type SerializeInput, serializeConfig } from './serialize.js';

/** Where editors find the schema: the copy shipped in the installed package. */
export const EXPORT_SCHEMA_REF = './node_modules/sitesync/schemas/websites.schema.json';
export const PASSWORD_VARIABLE_PREFIX = 'SITESYNC_PASSWORD_';
const PASSWORD_COMMENT = 'the service never reveals passwords: set this variable';

export interface ExportOptions {
  /** Comment lines written after the schema modeline. */
  header?: string;
  /** `$schema=` target of the modeline (default: EXPORT_SCHEMA_REF). */
  schema?: string;
  /** Written for a target's files: the defaults they inherit (serialize.ts `inherited`). */
  inherited?: Partial<WebsiteSettings>;
}

/** `shop.example.com` → `SITESYNC_PASSWORD_SHOP_EXAMPLE_COM` */
export function passwordVariable(domain: string): string {
  return `${PASSWORD_VARIABLE_PREFIX}${domain.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export interface ExportResult {
  text: string;
  /** One line each (for stderr): entries validate will refuse, fields not exported. */
  warnings: string[];
}

export function exportConfig(live: LiveWebsite[], options: ExportOptions = {}): string {
  return exportConfigWithWarnings(live, options).text;
}

export function exportConfigWithWarnings(live: LiveWebsite[], options: ExportOptions = {}): ExportResult {
  const used = new Set<string>();
  const warnings: string[] = [];
  const index = indexLiveByDomain(live);
  const duplicateComments = new Map(
    index.duplicates.map((duplicate) => [
      duplicate.domain,
      `the service also holds this domain as id ${duplicate.others.join(', ')}: exported id ${duplicate.kept} (the oldest)`,
    ]),
  );
  for (const duplicate of index.duplicates) {
    const ids = duplicate.others.join(', ');
    warnings.push(
      `${duplicate.domain}: the service holds this domain more than once; exported the oldest (id ${duplicate.kept}), not id ${ids}`,
    );
  }
  const websites = [...index.byDomain]
    .map(([domain, site]) => ({ site, domain }))
    .sort(byDomain)
    .map(({ site, domain }): SerializableWebsite => {
      const out: SerializableWebsite = { domain, settings: site.settings };
      const duplicateComment = duplicateComments.get(domain);
      if (duplicateComment !== undefined) out.domainComment = duplicateComment;
      if (site.settings.privacy === 'password') {
        out.passwordVariable = uniqueName(passwordVariable(domain), used);
        out.passwordComment = PASSWORD_COMMENT;
      }
      const invalid = (site.settings.excludeIps ?? []).filter((entry) => !isIpOrCidr(entry));
      if (invalid.length > 0) {
        out.settingComments = { excludeIps: invalidIpComment(invalid) };
        for (const entry of invalid) {
          warnings.push(
            `${domain}: exclude_ips entry ${JSON.stringify(entry)} is not an IP address or CIDR range; exported as is, with a comment: validate refuses the file until you correct it`,
          );
        }
      }
      return out;
    });
  const missing = unreturned(live);
  const header = [options.header, notExportedLine(missing)].filter((line) => line !== undefined).join('\n');
  const input: SerializeInput = { websites, schema: options.schema ?? EXPORT_SCHEMA_REF };
  if (options.inherited !== undefined) input.inherited = options.inherited;
  if (header !== '') input.header = header;
  if (missing.length > 0) {
    const them = missing.length === 1 ? 'it' : 'them';
    warnings.push(`the server does not return ${missing.join(', ')}: not exported; set ${them} by hand where needed`);
  }
  return { text: serializeConfig(input), warnings };
}

/** Config names of the settings that some live site lacks (the server does not return them). */
function unreturned(live: readonly LiveWebsite[]): string[] {
  return SETTING_NAMES.filter((name) => live.some((site) => site.settings[name] === undefined)).map(
    (name) => FIELDS[name].configName,
  );
}

function notExportedLine(missing: readonly string[]): string | undefined {
  if (missing.length === 0) return undefined;
  const them = missing.length === 1 ? 'it' : 'them';
  return `Not exported: ${missing.join(', ')} (the server does not return ${them}): set ${them} by hand.`;
}

function invalidIpComment(entries: readonly string[]): string {
  const list = entries.map((entry) => JSON.stringify(entry)).join(', ');
  return entries.length === 1
    ? `not an IP address or CIDR range: ${list} (the service accepted it; validate does not): correct it`
    : `not IP addresses or CIDR ranges: ${list} (the service accepted them; validate does not): correct them`;
}

/** `a-b.com` and `a.b.com` would share a name: the later one gets a suffix. */
function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = `${name}_${n}`;
  used.add(candidate);
  return candidate;
}
