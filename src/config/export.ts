/**
 * Live websites → canonical websites.yaml text (used by `sitesync export`).
 * Loading the result gives back the live settings: password-protected sites
 * get a `${SITESYNC_PASSWORD_<DOMAIN>}` reference (the service never reveals
 * passwords), and fields the server does not return are left out and named
 * in the header. What the service accepted but `validate` refuses is never
 * written as an invalid file (see exportConfigWithWarnings).
 */
import { byDomain, indexLiveByDomain, isAdoptableDomain, isStorableDomain } from '../model/domain.js';
import { isValidGlob } from '../model/glob.js';
import { FIELDS, type LiveWebsite, SETTING_NAMES, type WebsiteSettings } from '../model/website.js';
import { isIpOrCidr } from './ip.js';
import { type SerializableWebsite, type SerializeInput, serializeConfig, serializeWebsiteLines } from './serialize.js';

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
  /** One line each (for stderr): what the file does not hold as it is live, fields not exported. */
  warnings: string[];
  /** The websites the file does not hold as they are live (commented out, or a field left unmanaged). */
  incomplete: string[];
}

export function exportConfig(live: LiveWebsite[], options: ExportOptions = {}): string {
  return exportConfigWithWarnings(live, options).text;
}

/**
 * Whatever is written validates and plans to zero (issue 24). What the file
 * cannot hold as it is live is said in a comment and a warning, and listed in
 * `incomplete`: an exclude_ips entry validate refuses leaves that site's
 * exclude_ips unmanaged (`ignore_changes`, the live list in a comment), and a
 * domain validate refuses outright (`isAdoptableDomain`) is written commented
 * out at the end, and protected where a glob can name it, so a later prune
 * never deletes a site the file could not list.
 */
export function exportConfigWithWarnings(live: LiveWebsite[], options: ExportOptions = {}): ExportResult {
  const used = new Set<string>();
  const warnings: string[] = [];
  const incomplete: string[] = [];
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
  const sites = [...index.byDomain].map(([domain, site]) => ({ site, domain })).sort(byDomain);
  const unlistable = sites.filter(({ domain }) => !isAdoptableDomain(domain));
  for (const { domain } of unlistable) {
    incomplete.push(domain);
    warnings.push(`${JSON.stringify(domain)}: ${UNLISTABLE_REASON}; written commented out at the end of the file`);
  }
  const websites = sites
    .filter(({ domain }) => isAdoptableDomain(domain))
    .map(({ site, domain }): SerializableWebsite => {
      const out: SerializableWebsite = { domain, settings: { ...site.settings } };
      const comments = [duplicateComments.get(domain)];
      if (!isStorableDomain(domain)) comments.push(EXISTING_ONLY_COMMENT);
      if (site.settings.privacy === 'password') {
        out.passwordVariable = uniqueName(passwordVariable(domain), used);
        out.passwordComment = PASSWORD_COMMENT;
      }
      const ips = site.settings.excludeIps ?? [];
      const invalid = ips.filter((entry) => !isIpOrCidr(entry));
      if (invalid.length > 0) {
        delete out.settings.excludeIps;
        out.ignoreChanges = ['excludeIps'];
        comments.push(invalidIpComment(ips, invalid));
        incomplete.push(domain);
        warnings.push(
          `${domain}: exclude_ips ${invalid.map((entry) => JSON.stringify(entry)).join(', ')} ${invalid.length === 1 ? 'is not an IP address or CIDR range' : 'are not IP addresses or CIDR ranges'}; exclude_ips is written as ignore_changes (not managed), the live list in a comment`,
        );
      }
      const comment = comments.filter((text) => text !== undefined).join('; ');
      if (comment !== '') out.domainComment = comment;
      return out;
    });
  const missing = unreturned(live);
  const header = [options.header, notExportedLine(missing)].filter((line) => line !== undefined).join('\n');
  const input: SerializeInput = { websites, schema: options.schema ?? EXPORT_SCHEMA_REF };
  if (options.inherited !== undefined) input.inherited = options.inherited;
  if (header !== '') input.header = header;
  const protect = unlistable.map(({ domain }) => asGlob(domain)).filter((glob) => isValidGlob(glob));
  if (protect.length > 0) input.protect = protect;
  if (unlistable.length > 0) {
    input.trailer = [
      `Not listed: ${UNLISTABLE_REASON}. As live (kept as they are; protected where a glob can name them):`,
      ...unlistable.flatMap(({ site, domain }) => serializeWebsiteLines({ domain, settings: site.settings })),
    ];
  }
  if (missing.length > 0) {
    const them = missing.length === 1 ? 'it' : 'them';
    warnings.push(`the server does not return ${missing.join(', ')}: not exported; set ${them} by hand where needed`);
  }
  return { text: serializeConfig(input), warnings, incomplete };
}

const UNLISTABLE_REASON = 'not a domain validate accepts, even for an existing website';
const EXISTING_ONLY_COMMENT =
  'not a valid domain for a new website: the service holds it, so sitesync manages it (and never creates it)';

/** A protect glob for a domain: characters a glob cannot hold become `?` (one character each). */
function asGlob(domain: string): string {
  return domain.replace(/[^a-z0-9.*?_-]/gi, '?');
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

function invalidIpComment(live: readonly string[], invalid: readonly string[]): string {
  const list = invalid.map((entry) => JSON.stringify(entry)).join(', ');
  const [what, it] =
    invalid.length === 1
      ? ['is not an IP address or CIDR range', 'it']
      : ['are not IP addresses or CIDR ranges', 'them'];
  return `exclude_ips not managed: live [${live.join(', ')}], where ${list} ${what} (the service accepted ${it}; validate does not): correct ${it}, then remove ignore_changes`;
}

/** `a-b.com` and `a.b.com` would share a name: the later one gets a suffix. */
function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = `${name}_${n}`;
  used.add(candidate);
  return candidate;
}
