/**
 * `api.url` found without parsing: the plain block form that docs/config.md
 * shows (`api:` at the start of a line, then an indented `url:` with a plain
 * or simply quoted value), with trailing slashes dropped, as top-level.ts reads
 * it. Anything else (a `${…}`, which loading refuses, a flow mapping, an
 * escape, a block scalar, two different values) gives undefined. A guess
 * that the parsed file contradicts costs one listing, never a wrong plan: the
 * engine compares it with the loaded `api.url` (engine/early-listing.ts).
 */
import { hasReference } from './env.js';

const API_LINE = /^api:[ \t]*(?:#.*)?$/;
const URL_LINE = /^([ \t]+)url:[ \t]+(?:'([^']*)'|"([^"\\]*)"|([^\s'"#&*!|>%@`{[\]][^#]*?))[ \t]*(?:[ \t]#.*)?$/;
const TOP_LEVEL = /^[^\s#]/;

export function scanApiUrl(texts: readonly string[]): string | undefined {
  const found = new Set(texts.flatMap((text) => urlsIn(text)));
  if (found.size !== 1) return undefined;
  const [written] = found as Set<string>;
  return hasReference(written!) ? undefined : written!.replace(/\/+$/, '');
}

/** The `url:` values written directly under a top-level `api:` (at the block's own indentation). */
function urlsIn(text: string): string[] {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const urls: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!API_LINE.test(lines[i]!)) continue;
    let indent: string | undefined;
    for (let j = i + 1; j < lines.length && !TOP_LEVEL.test(lines[j]!); j++) {
      const line = lines[j]!;
      if (/^\s*(?:#.*)?$/.test(line)) continue;
      indent ??= /^\s*/.exec(line)![0];
      const match = URL_LINE.exec(line);
      if (match !== null && match[1] === indent) urls.push(match[2] ?? match[3] ?? match[4]!);
    }
  }
  return urls;
}
