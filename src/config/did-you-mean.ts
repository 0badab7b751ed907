/** "Did you mean …?" for unknown keys: the closest known name by edit distance. */
import { editDistance } from '../model/text.js';

/** The closest candidate within a small distance (a third of the word, at least 2), or undefined. */
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
