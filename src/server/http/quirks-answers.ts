/**
 * Quirks mode (phpanalytics-v31): answers in the deployed service's dress. Laravel's JSON is
 * `application/json` without a charset; Symfony adds `Cache-Control: no-cache, private` to every
 * answer; the exception handler pretty-prints the JSON it renders (the 429), and renders a 500
 * as an HTML page when the request does not ask for JSON. OPTIONS is the router's own answer.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { wantsJson } from './quirks-gate.js';

/** Laravel's error page, in short: the status and its words (the deployed page adds styles). */
const SERVER_ERROR_PAGE =
  '<!DOCTYPE html>\n<html lang="en">\n    <head>\n        <meta charset="utf-8">\n        <title>Server Error</title>\n    </head>\n    <body>\n        <div>500 | Server Error</div>\n    </body>\n</html>\n';

/** The router's answer to OPTIONS on a route: 200, empty, the route's methods in `Allow`. */
export function optionsAnswer(reply: FastifyReply, methods: readonly string[]): FastifyReply {
  return reply.code(200).header('allow', methods.join(',')).type('text/html; charset=UTF-8').send('');
}

export function registerQuirksAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('cache-control', 'no-cache, private');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json'))
      reply.header('content-type', 'application/json');
    if (reply.statusCode === 500 && !wantsJson(request)) {
      reply.header('content-type', 'text/html; charset=UTF-8');
      return SERVER_ERROR_PAGE;
    }
    if (reply.statusCode === 429 && typeof payload === 'string') return JSON.stringify(JSON.parse(payload), null, 4);
    return payload;
  });
}
