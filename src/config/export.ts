/**
 * Live websites → canonical websites.yaml text (used by `sitesync export`).
 * Loading the result gives back the live settings: password-protected sites
 * get a `${SITESYNC_PASSWORD_<DOMAIN>}` reference (the service never reveals
 * passwords), and fields the server does not return are left out.
 */
import { byDomain, canonicalDomain } from '../model/domain.js';
import type { LiveWebsite } from '../model/website.js';
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
}

/** `shop.example.com` → `SITESYNC_PASSWORD_SHOP_EXAMPLE_COM` */
export function passwordVariable(domain: string): string {
  return `${PASSWORD_VARIABLE_PREFIX}${domain.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function exportConfig(live: LiveWebsite[], options: ExportOptions = {}): string {
  const used = new Set<string>();
  const websites = live
    .map((site) => ({ site, domain: canonicalDomain(site.domain) }))
    .sort(byDomain)
    .map(({ site, domain }): SerializableWebsite => {
      const out: SerializableWebsite = { domain, settings: site.settings };
      if (site.settings.privacy === 'password') {
        out.passwordVariable = uniqueName(passwordVariable(domain), used);
        out.passwordComment = PASSWORD_COMMENT;
      }
      return out;
    });
  const input: SerializeInput = { websites, schema: options.schema ?? EXPORT_SCHEMA_REF };
  if (options.header !== undefined) input.header = options.header;
  return serializeConfig(input);
}

/** `a-b.com` and `a.b.com` would share a name: the later one gets a suffix. */
function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = `${name}_${n}`;
  used.add(candidate);
  return candidate;
}
