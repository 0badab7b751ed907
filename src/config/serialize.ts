/**
 * Websites (and optionally a policy) → canonical websites.yaml text: schema
 * modeline first, sorted by domain, shared values factored into `defaults`,
 * friendly values (privacy words, booleans, flow lists), passwords only as
 * `${VAR}` references. The inverse of loading: load(serialize(x)) gives x.
 */
import { Document, isNode, isScalar, type Node, visit } from 'yaml';
import { canonicalJson } from '../model/canonical-json.js';
import type { ConfigPolicy } from '../model/desired-state.js';
import { byDomain } from '../model/domain.js';
import { escapeInvisible, hasInvisible } from '../model/text.js';
import {
  CONFIG_FIELD_NAMES,
  FIELDS,
  type FieldName,
  SETTING_NAMES,
  type SettingName,
  type SettingValue,
  sameValue,
  type WebsiteSettings,
} from '../model/website.js';

export interface SerializableWebsite {
  domain: string;
  /** Fields left out are not written (e.g. not readable from the server). */
  settings: Partial<WebsiteSettings>;
  /** Written as `password: ${passwordVariable}`. */
  passwordVariable?: string;
  /** A comment placed after the password line. */
  passwordComment?: string;
  /** A comment placed after the domain line. */
  domainComment?: string;
  ignoreChanges?: readonly FieldName[];
}

export interface SerializeInput {
  websites: readonly SerializableWebsite[];
  /**
   * The defaults the file inherits from the configuration it joins (a
   * target's file: websites.yaml's `defaults:`): no `defaults:` of its own,
   * each site written relative to these, so loading it gives the live values.
   */
  inherited?: Partial<WebsiteSettings>;
  /** Written in full when given. */
  policy?: ConfigPolicy;
  apiUrl?: string;
  /** yaml-language-server `$schema=` target. */
  schema: string;
  /** Comment lines after the modeline. */
  header?: string;
  /** Globs written as `protect:` (without a full policy). */
  protect?: readonly string[];
  /** Comment lines at the end of the file. */
  trailer?: readonly string[];
}

type Defaults = Partial<Record<SettingName, SettingValue>>;

export function serializeConfig(input: SerializeInput): string {
  const websites = [...input.websites].sort(byDomain);
  const defaults = input.inherited ?? commonDefaults(websites);
  const root: Record<string, unknown> = { version: 1 };
  if (input.apiUrl !== undefined) root.api = { url: input.apiUrl };
  if (input.policy) Object.assign(root, policyObject(input.policy));
  else if (input.protect !== undefined) root.protect = [...input.protect];
  if (input.inherited === undefined && Object.keys(defaults).length > 0) root.defaults = settingsObject(defaults);
  root.websites = websites.map((site) => websiteObject(site, defaults));

  const doc = new Document(root);
  const header = input.header ? `\n${input.header.replace(/^/gm, ' ').replace(/ +$/gm, '')}` : '';
  doc.commentBefore = ` yaml-language-server: $schema=${input.schema}${header}`;
  websites.forEach((site, i) => {
    const domain = doc.getIn(['websites', i, 'domain'], true);
    if (site.domainComment && isNode(domain)) (domain as Node).comment = ` ${site.domainComment}`;
    const password = doc.getIn(['websites', i, 'password'], true);
    if (site.passwordComment && isNode(password)) (password as Node).comment = ` ${site.passwordComment}`;
  });
  flowLists(doc);
  quoteInvisible(doc);
  const text = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  const trailer = (input.trailer ?? []).map((line) => `# ${line}`.trimEnd());
  return escapeInvisible(trailer.length === 0 ? text : `${text}${trailer.join('\n')}\n`, 'yaml');
}

/**
 * A value holding an invisible character (a live domain `\u202Eelpmaxe.live`
 * reads as `evil.example`) is written double-quoted, where the escape that
 * escapeInvisible writes is read back as the character itself.
 */
function quoteInvisible(doc: Document): void {
  visit(doc, {
    Scalar(_key, scalar) {
      if (typeof scalar.value === 'string' && hasInvisible(scalar.value)) scalar.type = 'QUOTE_DOUBLE';
    },
  });
}

/** One website entry as YAML lines (`- domain: …`), values the service defaults left out: for a comment. */
export function serializeWebsiteLines(site: SerializableWebsite): string[] {
  const doc = new Document([websiteObject(site, {})]);
  flowLists(doc);
  quoteInvisible(doc);
  return escapeInvisible(doc.toString({ lineWidth: 0, flowCollectionPadding: false }), 'yaml')
    .trimEnd()
    .split('\n');
}

/** The most common value of each field, when shared by two or more sites and unlike the service default. */
export function commonDefaults(websites: readonly SerializableWebsite[]): Defaults {
  const defaults: Defaults = {};
  for (const name of SETTING_NAMES) {
    const counts = new Map<string, { value: SettingValue; count: number }>();
    for (const site of websites) {
      const value = site.settings[name];
      if (value === undefined) continue;
      const key = canonicalJson(value);
      const entry = counts.get(key) ?? { value, count: 0 };
      entry.count += 1;
      counts.set(key, entry);
    }
    const serviceDefault = canonicalJson(FIELDS[name].defaultValue);
    // Highest count wins; ties go to the service default, then to the smallest JSON text: deterministic.
    const ranked = [...counts.entries()].sort(
      ([ka, a], [kb, b]) =>
        b.count - a.count ||
        Number(kb === serviceDefault) - Number(ka === serviceDefault) ||
        (ka < kb ? -1 : ka > kb ? 1 : 0),
    );
    const [key, best] = ranked[0] ?? [];
    if (best && key !== serviceDefault && best.count >= 2) defaults[name] = best.value;
  }
  return defaults;
}

function settingsObject(settings: Defaults): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    if (settings[name] !== undefined) out[FIELDS[name].configName] = settings[name];
  }
  return out;
}

function websiteObject(site: SerializableWebsite, defaults: Defaults): Record<string, unknown> {
  const out: Record<string, unknown> = { domain: site.domain };
  for (const name of SETTING_NAMES) {
    const value = site.settings[name];
    if (value !== undefined && !sameValue(value, defaults[name] ?? FIELDS[name].defaultValue)) {
      out[FIELDS[name].configName] = value;
    }
    // The password reference always sits right after privacy, where a reader looks for it.
    if (name === 'privacy' && site.passwordVariable) out.password = `\${${site.passwordVariable}}`;
  }
  if (site.ignoreChanges && site.ignoreChanges.length > 0) {
    out.ignore_changes = site.ignoreChanges.map((field) => CONFIG_FIELD_NAMES[field]);
  }
  return out;
}

function policyObject(policy: ConfigPolicy): Record<string, unknown> {
  return {
    prune: policy.prune,
    manage: { include: policy.manage.include, exclude: policy.manage.exclude },
    protect: policy.protect,
    limits: { max_deletes: policy.limits.maxDeletes, max_change_percent: policy.limits.maxChangePercent },
  };
}

/** Lists of scalars read best on one line: `exclude_ips: [203.0.113.7, 198.51.100.0/24]`. */
function flowLists(doc: Document): void {
  visit(doc, {
    Seq(_key, seq) {
      if (seq.items.every((item) => isScalar(item))) seq.flow = true;
    },
  });
}
