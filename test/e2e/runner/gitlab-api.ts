/**
 * A local stand-in for the GitLab REST API calls of the component's scripts:
 * the token's user (`GET /user`), merge request notes (list, create, edit;
 * each with its author), the project's tags (delete,
 * create), and what a test puts in `answers` (a path under the project → JSON,
 * or text such as an artifact) for the reviewed plan's lookup. Answers 401 to
 * another token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitlabStandIn {
  url: string;
  /** The project id (CI_PROJECT_ID). */
  project: string;
  token: string;
  /** The token's user id: the author of the notes it writes (a test may add others' notes). */
  userId: number;
  notes: { id: number; iid: number; body: string; author: { id: number } }[];
  /** The tags created, name → commit. */
  tags: Map<string, string>;
  /** GET answers by path under the project (`/merge_requests/3`, `/jobs/11/artifacts/plan.json`…). */
  answers: Map<string, unknown>;
  close(): Promise<void>;
}

export async function startGitlabStandIn(project: string): Promise<GitlabStandIn> {
  const token = 'glpat-standin0123456789';
  const userId = 42;
  const notes: GitlabStandIn['notes'] = [];
  const tags = new Map<string, string>();
  const answers = new Map<string, unknown>();
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.headers['private-token'] !== token) return answer(401, { message: '401 Unauthorized' });
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname === '/api/v4/user' && request.method === 'GET')
        return answer(200, { id: userId, username: 'sitesync-bot' });
      const path = url.pathname.replace(`/api/v4/projects/${project}`, '');
      const note = /^\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(path);
      if (note && request.method === 'GET')
        return answer(
          200,
          notes.filter((n) => n.iid === Number(note[1])),
        );
      if (note && request.method === 'POST') {
        const created = {
          id: notes.length + 1,
          iid: Number(note[1]),
          body: JSON.parse(text).body,
          author: { id: userId },
        };
        notes.push(created);
        return answer(201, created);
      }
      if (note && request.method === 'PUT') {
        const found = notes.find((n) => n.id === Number(note[2]));
        if (!found) return answer(404, {});
        found.body = JSON.parse(text).body;
        return answer(200, found);
      }
      const tag = /^\/repository\/tags(?:\/(.+))?$/.exec(path);
      if (tag && request.method === 'DELETE') return answer(tags.delete(tag[1] ?? '') ? 204 : 404, {});
      if (tag && request.method === 'POST') {
        const form = new URLSearchParams(text);
        tags.set(form.get('tag_name') ?? '', form.get('ref') ?? '');
        return answer(201, {});
      }
      const given = request.method === 'GET' ? answers.get(path) : undefined;
      if (typeof given === 'string') return response.writeHead(200).end(given);
      return given === undefined ? answer(404, { message: '404 Not Found' }) : answer(200, given);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`,
    project,
    token,
    userId,
    notes,
    tags,
    answers,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
