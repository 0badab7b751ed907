// Downloads the plan file reviewed in the merge request that produced this
// commit: the `sitesync:plan` artifact of that merge request's latest pipeline.
// Usage (in sitesync:apply): node ci/fetch-reviewed-plan.mjs <output file>
// Needs CI_API_V4_URL, CI_PROJECT_ID, CI_COMMIT_SHA (set by GitLab) and
// SITESYNC_GITLAB_TOKEN (read access to the API).
import { writeFileSync } from 'node:fs';

const { CI_API_V4_URL: api, CI_PROJECT_ID: project, CI_COMMIT_SHA: sha, SITESYNC_GITLAB_TOKEN: token } = process.env;
const out = process.argv[2] ?? 'reviewed-plan.json';
const headers = { 'PRIVATE-TOKEN': token ?? '' };

async function get(path, as = 'json') {
  const response = await fetch(`${api}/projects/${project}${path}`, { headers });
  if (!response.ok) throw new Error(`GET ${path} → ${response.status}`);
  return as === 'json' ? response.json() : response.text();
}

const [mr] = await get(`/repository/commits/${sha}/merge_requests`);
if (!mr) throw new Error(`${sha} came from no merge request: no reviewed plan to apply`);
const pipelines = await get(`/merge_requests/${mr.iid}/pipelines`);
for (const pipeline of pipelines) {
  const jobs = await get(`/pipelines/${pipeline.id}/jobs?scope[]=success`);
  const plan = jobs.find((job) => job.name === 'sitesync:plan');
  if (!plan) continue;
  writeFileSync(out, await get(`/jobs/${plan.id}/artifacts/plan.json`, 'text'));
  console.log(`reviewed plan: merge request !${mr.iid}, job ${plan.id} → ${out}`);
  process.exit(0);
}
throw new Error(`no successful sitesync:plan job in merge request !${mr.iid}`);
