// Downloads the plan file reviewed in the merge request that produced this
// commit: the `sitesync:plan` artifact of a successful pipeline that ran on the
// merge request's head commit (a plan of an older commit was not what was
// merged, so it is never taken), and writes the merge request's
// acknowledgements (`sitesync-acknowledge: --allow-delete DOMAIN` lines of its
// description), one argument per line, for `sitesync apply`. A line starting
// `sitesync-acknowledge:` that does not parse fails the job, named (exit 1).
// Usage (in the component's sitesync:apply): node fetch-reviewed-plan.mjs <plan file> <acknowledgements file>
// Needs CI_API_V4_URL, CI_PROJECT_ID, CI_COMMIT_SHA (set by GitLab) and
// SITESYNC_GITLAB_TOKEN (read access to the API).
import { writeFileSync } from 'node:fs';
import { parseAcknowledgements, REJECTED_HINT } from '../lib/acknowledgements.mjs';

const { CI_API_V4_URL: api, CI_PROJECT_ID: project, CI_COMMIT_SHA: sha, SITESYNC_GITLAB_TOKEN: token } = process.env;
const out = process.argv[2] ?? 'reviewed-plan.json';
const acknowledgementsOut = process.argv[3] ?? 'acknowledgements.txt';
const headers = { 'PRIVATE-TOKEN': token ?? '' };

async function get(path, as = 'json') {
  const response = await fetch(`${api}/projects/${project}${path}`, { headers });
  if (!response.ok) throw new Error(`GET ${path} → ${response.status}`);
  return as === 'json' ? response.json() : response.text();
}

/** The flags of the accepted lines; a line meant as an acknowledgement that does not parse is reported, never dropped. */
function acknowledgements(mr) {
  const { flags, rejected } = parseAcknowledgements(mr.description);
  for (const line of rejected) console.error(`!${mr.iid}: ${REJECTED_HINT}: ${line}`);
  if (rejected.length > 0) process.exit(1);
  return flags;
}

/** Whether the plan job's plan-head.txt names the merge request's head commit. */
async function plannedHead(job, head) {
  const recorded = await get(`/jobs/${job}/artifacts/plan-head.txt`, 'text').catch(() => '');
  return recorded.trim() === head;
}

const candidates = await get(`/repository/commits/${sha}/merge_requests`);
const merged = candidates.find((candidate) => candidate.state === 'merged') ?? candidates[0];
if (!merged) throw new Error(`${sha} came from no merge request: no reviewed plan to apply`);
const mr = await get(`/merge_requests/${merged.iid}`);
const flags = acknowledgements(mr);
const head = mr.sha; // the merge request's head commit: what was reviewed and merged
const pipelines = await get(`/merge_requests/${mr.iid}/pipelines`);
for (const pipeline of pipelines) {
  const jobs = await get(`/pipelines/${pipeline.id}/jobs?scope[]=success`);
  const plan = jobs.find((job) => job.name === 'sitesync:plan');
  if (!plan) continue;
  // A merged-results pipeline runs on a merge commit, not the head: its plan job records the head it planned.
  if (pipeline.sha !== head && !(await plannedHead(plan.id, head))) continue;
  writeFileSync(out, await get(`/jobs/${plan.id}/artifacts/plan.json`, 'text'));
  writeFileSync(acknowledgementsOut, flags.map((arg) => `${arg}\n`).join(''));
  console.log(`reviewed plan: merge request !${mr.iid} at ${head}, job ${plan.id} → ${out}`);
  if (flags.length > 0) console.log(`acknowledged in !${mr.iid}: ${flags.join(' ')}`);
  process.exit(0);
}
throw new Error(
  `no successful sitesync:plan job for the head commit ${head} of merge request !${mr.iid}: re-run its plan and review it`,
);
