/**
 * The list's `search` (a substring of the domain) as SQL that an index serves.
 * An FTS5 trigram index over domains (migration 3) finds the candidate rows
 * from every run of 3+ literal characters; the exact test then runs on those
 * candidates only: `instr` in normal mode (literal, NUL included: LIKE would
 * end its pattern at a NUL and match everything), LIKE in quirks mode (`%` and
 * `_` are wildcards, as on the real service). A search without such a run
 * (1–2 characters, or wildcards between every pair) scans the account.
 */

export interface SearchSql {
  /** Conditions on `websites`, ANDed to the account filter. */
  where: string;
  /** The exact test alone, for rows already found another way (walking an index from a page anchor). */
  exact: string;
  params: Record<string, unknown>;
  /** Which statement shape this is (for the statement cache). */
  shape: string;
}

const TRIGRAM = 3;

export function searchSql(search: { text: string; literal: boolean }): SearchSql {
  const { text, literal } = search;
  // Wildcards and NUL break runs: the trigram index can only vouch for literal characters.
  const runs = text.split(literal ? '\0' : /[%_\0]/).filter((run) => [...run].length >= TRIGRAM);
  const hasNul = text.includes('\0');
  const exact = literal
    ? 'instr(lower(domain), lower(@text)) > 0'
    : `domain LIKE @pattern${hasNul ? ' AND instr(domain, char(0)) > 0' : ''}`;
  const params: Record<string, unknown> = literal ? { text } : { pattern: `%${text}%` };
  if (runs.length === 0) {
    return { where: exact, exact, params, shape: `${literal ? 'l' : 'w'}${hasNul ? 'n' : ''}-scan` };
  }
  params.match = runs.map((run) => `"${run.replace(/"/g, '""')}"`).join(' AND ');
  return {
    where: `id IN (SELECT rowid FROM websites_search WHERE websites_search MATCH @match) AND ${exact}`,
    exact,
    params,
    shape: `${literal ? 'l' : 'w'}${hasNul ? 'n' : ''}-index`,
  };
}
