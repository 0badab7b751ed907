// The few GitHub REST calls the action makes, with the job's token:
// GITHUB_API_URL (https://api.github.com, or GitHub Enterprise's), GITHUB_REPOSITORY, GITHUB_TOKEN.
const {
  GITHUB_API_URL: api = 'https://api.github.com',
  GITHUB_REPOSITORY: repository,
  GITHUB_TOKEN: token,
} = process.env;

export async function github(method, path, body) {
  const response = await fetch(`${api}/repos/${repository}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token ?? ''}`,
      'x-github-api-version': '2022-11-28',
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`GitHub API: ${method} ${path} → ${response.status} ${await response.text()}`);
  return response.json();
}

/** Who writes the plan comment: the job's token (override for a GitHub App's token). */
const AUTHOR = process.env.SITESYNC_COMMENT_AUTHOR || 'github-actions[bot]';

/**
 * The pull request's sitesync comment: the first that starts with the marker and was
 * written by the action's token; anyone can post a comment starting with the marker.
 */
export async function ownComment(number, marker) {
  return (await comments(number)).find((comment) => comment.user?.login === AUTHOR && comment.body?.startsWith(marker));
}

/** Every comment of an issue or pull request, page by page. */
async function comments(number) {
  const all = [];
  for (let page = 1; ; page++) {
    const batch = await github('GET', `/issues/${number}/comments?per_page=100&page=${page}`);
    all.push(...batch);
    if (batch.length < 100) return all;
  }
}
