// Acknowledgements of a safety rule, per pull (merge) request: the
// `sitesync-acknowledge: FLAG VALUE` lines of its description (docs/workflows.md).
// Shared by the GitHub Action and the GitLab component; no I/O.

/**
 * Only the acknowledgement flags, each with one domain, glob or number, or a
 * broken error policy named exactly: NAME:DOMAIN (a rule over a website) or NAME.
 */
const LINE =
  /^sitesync-acknowledge:[ \t]*(?:(--allow-delete|--max-deletes|--max-change-percent)[ \t]+([A-Za-z0-9.*?_-]+)|(--allow-policy)[ \t]+([a-z0-9][a-z0-9_-]*(?::[A-Za-z0-9._-]+)?))[ \t]*$/;

/**
 * The flags of the accepted lines, one argument per entry, and the lines that start
 * `sitesync-acknowledge:` but do not parse (reported, never dropped).
 */
export function parseAcknowledgements(description) {
  const lines = (description ?? '').split(/\r?\n/).filter((line) => line.startsWith('sitesync-acknowledge:'));
  const rejected = lines.filter((line) => !LINE.test(line));
  const flags = lines.flatMap((line) => {
    const match = LINE.exec(line);
    if (!match) return [];
    return match[1] === undefined ? [match[3], match[4]] : [match[1], match[2]];
  });
  return { flags, rejected };
}

/**
 * Acknowledgements given to the re-plan path (the action's `acknowledge` input, GitLab's
 * SITESYNC_ACKNOWLEDGE): description lines, or bare flags on one line (a workflow_dispatch
 * input is one line), e.g. `--allow-delete a.example --max-deletes 25`. Read as the lines
 * of a description are: the same flags, the same refusals.
 */
export function parseGivenAcknowledgements(text) {
  const tokens = (text ?? '').replaceAll('sitesync-acknowledge:', ' ').split(/\s+/).filter(Boolean);
  const lines = [];
  for (let index = 0; index < tokens.length; index += 2)
    lines.push(`sitesync-acknowledge: ${tokens.slice(index, index + 2).join(' ')}`);
  return parseAcknowledgements(lines.join('\n'));
}

export const REJECTED_HINT =
  'not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N, --max-change-percent N or --allow-policy NAME[:DOMAIN], one per line)';
