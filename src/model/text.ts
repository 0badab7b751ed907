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
 * Text from the service made safe for a terminal: every control character
 * (C0, DEL, C1, so ESC sequences too) shown as a visible `\xNN` instead.
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (char) => `\\x${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
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
