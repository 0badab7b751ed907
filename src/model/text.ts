/**
 * Wording shared by the planner's messages and the renderers, so that both
 * count and list things the same way. Pure; imports nothing.
 */

/** "1 website" / "3 websites". */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The first `shown` entries, then a count of the rest: `a.com, b.com and 3 more`. */
export function listFirst(entries: readonly string[], shown: number): string {
  const listed = entries.slice(0, shown).join(', ');
  return entries.length > shown ? `${listed} and ${entries.length - shown} more` : listed;
}

/**
 * What never reaches a terminal or a PR comment raw: control characters (C0,
 * DEL, C1, so ESC sequences too), the invisible format characters (Unicode
 * category Cf: bidi overrides and isolates, zero-width spaces, the BOM, tags)
 * and the line and paragraph separators. A live domain `\u202Eelpmaxe.live`
 * printed raw reads as `evil.example`.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/gu;
/** The same less C0, which JSON and YAML serialisers already escape inside strings (and use as line breaks between them). */
const LEFT_RAW = /[\u007f-\u009f\p{Cf}\u2028\u2029]/gu;
const HAS_LEFT_RAW = new RegExp(LEFT_RAW.source, 'u');

const hex = (code: number, width: number): string => code.toString(16).toUpperCase().padStart(width, '0');

/**
 * Text from the service made safe for a terminal: each character of
 * UNPRINTABLE shown visibly, `\x1B` up to U+00FF, else `\u202E` (`\u{E0001}`
 * beyond the BMP).
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const code = char.codePointAt(0) ?? 0;
    if (code <= 0xff) return `\\x${hex(code, 2)}`;
    return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\u{${hex(code, 1)}}`;
  });
}

/**
 * `text` (JSON or YAML that a serialiser wrote) with each character it leaves
 * raw but a terminal must not get raw (DEL, C1, Cf, separators) written as
 * the escape both languages read back as that character: `\u202e`; beyond the
 * BMP a surrogate pair in JSON, `\U000e0001` in YAML. Only for text where
 * these characters can stand only inside double-quoted strings (or comments).
 */
export function escapeInvisible(text: string, language: 'json' | 'yaml'): string {
  return text.replace(LEFT_RAW, (char) => {
    const code = char.codePointAt(0) ?? 0;
    if (code > 0xffff && language === 'yaml') return `\\U${hex(code, 8).toLowerCase()}`;
    return Array.from({ length: char.length }, (_, i) => `\\u${hex(char.charCodeAt(i), 4).toLowerCase()}`).join('');
  });
}

/** Whether `text` holds a character that escapeInvisible writes as an escape. */
export function hasInvisible(text: string): boolean {
  return HAS_LEFT_RAW.test(text);
}

/** A JSON document as sitesync prints it: two-space indent, final newline, invisible characters escaped. */
export function jsonDocument(value: unknown): string {
  return `${escapeInvisible(JSON.stringify(value, null, 2), 'json')}\n`;
}

/** Levenshtein distance: "did you mean" for keys and values, and how alike two domains of a suspected rename are. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** "Did you mean …?": the closest candidate within a small distance (a third of the word, at least 2), or undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const normalized = word.toLowerCase().replace(/-/g, '_');
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    // The lengths alone put it out of reach: no need to measure (a file of 200,000 unknown keys).
    if (Math.abs(normalized.length - candidate.length) > limit) continue;
    const distance = editDistance(normalized, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}
