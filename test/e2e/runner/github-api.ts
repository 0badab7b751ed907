/**
 * A local stand-in for the part of GitHub's REST API the action calls (the one
 * thing of a runner that cannot run here): a pull request's comments (list,
 * create, edit), the pull requests of a commit, and a pull request. Holds the
 * pull requests a test opens and merges; answers 401 to any other token.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PullRequest {
  number: number;
  body: string;
  headSha: string;
  /** The merge commit once merged. */
  mergeSha?: string;
}

export interface Comment {
  id: number;
  body: string;
  number: number;
  /** Who wrote it: the job's token writes as github-actions[bot]. */
  login: string;
}

export interface GithubStandIn {
  url: string;
  token: string;
  pulls: Map<number, PullRequest>;
  comments: Comment[];
  /** Every request, as `METHOD path`. */
  requests: string[];
  close(): Promise<void>;
}

const read = (request: IncomingMessage): Promise<string> =>
  new Promise((done) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => done(text));
  });

/** The author of what the job's token writes. */
export const BOT = 'github-actions[bot]';

export async function startGithubStandIn(repository: string): Promise<GithubStandIn> {
  const token = 'ghs_standin0123456789abcdef';
  const state = { pulls: new Map<number, PullRequest>(), comments: [] as Comment[], requests: [] as string[] };
  let nextId = 1000;
  const route = async (method: string, path: string, body: string): Promise<[number, unknown]> => {
    const prefix = `/repos/${repository}`;
    if (!path.startsWith(prefix)) return [404, { message: 'Not Found' }];
    const [route = '', query = ''] = path.slice(prefix.length).split('?');
    let match = /^\/issues\/(\d+)\/comments$/.exec(route);
    if (match && method === 'GET') {
      const page = Number(new URLSearchParams(query).get('page') ?? '1');
      const all = state.comments.filter((comment) => comment.number === Number(match?.[1]));
      const shown = all.slice((page - 1) * 100, page * 100);
      return [200, shown.map(({ id, body, login }) => ({ id, body, user: { login } }))];
    }
    if (match && method === 'POST') {
      const comment = { id: nextId++, number: Number(match[1]), body: JSON.parse(body).body as string, login: BOT };
      state.comments.push(comment);
      return [201, { id: comment.id, body: comment.body }];
    }
    match = /^\/issues\/comments\/(\d+)$/.exec(route);
    if (match && method === 'PATCH') {
      const comment = state.comments.find((candidate) => candidate.id === Number(match?.[1]));
      if (!comment || comment.login !== BOT) return [404, { message: 'Not Found' }];
      comment.body = JSON.parse(body).body;
      return [200, { id: comment.id, body: comment.body }];
    }
    match = /^\/commits\/([0-9a-f]{40})\/pulls$/.exec(route);
    if (match && method === 'GET') {
      const pulls = [...state.pulls.values()].filter((pull) => pull.mergeSha === match?.[1]);
      return [200, pulls.map((pull) => ({ number: pull.number, merged_at: '2026-01-01T00:00:00Z' }))];
    }
    match = /^\/pulls\/(\d+)$/.exec(route);
    const pull = match && state.pulls.get(Number(match[1]));
    if (pull && method === 'GET') return [200, { number: pull.number, body: pull.body, head: { sha: pull.headSha } }];
    return [404, { message: 'Not Found' }];
  };
  const server: Server = createServer(async (request, response) => {
    const body = await read(request);
    state.requests.push(`${request.method} ${request.url}`);
    const [status, answer] =
      request.headers.authorization === `Bearer ${token}`
        ? await route(request.method ?? 'GET', request.url ?? '/', body)
        : [401, { message: 'Bad credentials' }];
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    ...state,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
