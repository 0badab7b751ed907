// A saved plan file inside a pull request's comment (between hidden markers,
// gzip + base64), so the apply on merge takes exactly the reviewed file from the
// comment that showed it, and the git commits its baselines were read at.

import { gunzipSync, gzipSync } from 'node:zlib';

export const MARKER = '<!-- sitesync-plan -->';
const BEGIN = '<!-- sitesync-plan-file';
const END = 'sitesync-plan-file -->';
/** GitHub refuses a comment over 65,536 characters; the Markdown of the plan needs room too. */
export const MAX_EMBEDDED = 40_000;

/** The hidden block holding `planText` and the commit it was planned at. */
export function embed(planText, head) {
  const data = gzipSync(Buffer.from(planText)).toString('base64');
  if (data.length > MAX_EMBEDDED) return undefined;
  return `${BEGIN} head=${head}\n${data.replace(/(.{100})/g, '$1\n').trim()}\n${END}`;
}

/** The plan text and its head commit from a comment body, or undefined when it holds none. */
export function extract(body) {
  const start = body.indexOf(BEGIN);
  const end = body.indexOf(END);
  if (start < 0 || end < start) return undefined;
  const [first, ...rest] = body.slice(start + BEGIN.length, end).split('\n');
  const head = /head=([0-9a-f]{7,64})/.exec(first ?? '')?.[1];
  const planText = gunzipSync(Buffer.from(rest.join(''), 'base64')).toString('utf8');
  return { head, planText };
}

/** Every commit a saved plan's baselines were read at (its plan's `baseline.commit`, per target too). */
export function baselineCommits(savedPlan) {
  const commits = new Set();
  const visit = (value) => {
    if (Array.isArray(value)) for (const entry of value) visit(entry);
    else if (value !== null && typeof value === 'object') {
      const commit = value.baseline?.commit;
      if (typeof commit === 'string') commits.add(commit);
      for (const entry of Object.values(value)) visit(entry);
    }
  };
  visit(savedPlan);
  return [...commits];
}
