// Acknowledgements of a safety rule, per pull (merge) request: the
// `sitesync-acknowledge: FLAG VALUE` lines of its description (docs/workflows.md).
// Shared by the GitHub Action and the GitLab component; no I/O.

/** Only the acknowledgement flags, each with one domain, glob or number. */
const LINE =
  /^sitesync-acknowledge:[ \t]*(--allow-delete|--max-deletes|--max-change-percent)[ \t]+([A-Za-z0-9.*?_-]+)[ \t]*$/;

/**
 * The flags of the accepted lines, one argument per entry, and the lines that start
 * `sitesync-acknowledge:` but do not parse (reported, never dropped).
 */
export function parseAcknowledgements(description) {
  const lines = (description ?? '').split(/\r?\n/).filter((line) => line.startsWith('sitesync-acknowledge:'));
  const rejected = lines.filter((line) => !LINE.test(line));
  const flags = lines.flatMap((line) => {
    const match = LINE.exec(line);
    return match ? [match[1], match[2]] : [];
  });
  return { flags, rejected };
}

export const REJECTED_HINT =
  'not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N or --max-change-percent N, one per line)';
