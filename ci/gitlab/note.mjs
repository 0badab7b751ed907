// Posts FILE as the merge request's sitesync note: edits the note that starts
// with the hidden marker and was written by the token's own user (anyone can
// write a note that starts with the marker), or creates it.
// Usage: node note.mjs FILE. Needs CI_API_V4_URL, CI_PROJECT_ID,
// CI_MERGE_REQUEST_IID (set by GitLab) and SITESYNC_GITLAB_TOKEN.
import { readFileSync } from 'node:fs';
import { MARKER } from '../lib/plan-file.mjs';

const {
  CI_API_V4_URL: api,
  CI_PROJECT_ID: project,
  CI_MERGE_REQUEST_IID: iid,
  SITESYNC_GITLAB_TOKEN: token,
} = process.env;
const notes = `${api}/projects/${project}/merge_requests/${iid}/notes`;
const headers = { 'PRIVATE-TOKEN': token ?? '', 'content-type': 'application/json' };

async function call(method, url, body) {
  const response = await fetch(url, { method, headers, ...(body && { body: JSON.stringify(body) }) });
  if (!response.ok) throw new Error(`GitLab API: ${method} ${url} → ${response.status}`);
  return response.json();
}

const body = readFileSync(process.argv[2], 'utf8');
const me = await call('GET', `${api}/user`);
const own = (await call('GET', `${notes}?per_page=100&sort=asc`)).find(
  (note) => note.author?.id === me.id && note.body?.startsWith(MARKER),
);
if (own) await call('PUT', `${notes}/${own.id}`, { body });
else await call('POST', notes, { body });
console.log(`${own ? 'updated' : 'posted'} the sitesync plan note of !${iid}`);
