/**
 * Quirks mode (phpanalytics-v31): answers in the deployed service's dress. JSON is written as PHP's
 * json_encode writes it (`\/`, `\u00fc`; the exception handler's own answers keep their slashes and
 * the 429 is pretty-printed), `application/json` without a charset; Symfony adds `Cache-Control:
 * no-cache, private` to every answer; a 404 for no route, a 429 and a 500 are the app's own HTML
 * views when the request does not expect JSON. OPTIONS is the router's own answer.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { expectsJson } from './quirks-request.js';

/** The app's error views (resources/views/errors): their title and words; the layout is not reproduced. */
const ERROR_VIEWS: Record<number, string> = { 404: 'Not found', 429: 'Too many requests', 500: 'Server error' };

/** The app's error page for a status it has a view for, as an HTML document. */
export function errorPage(status: number): string {
  const words = ERROR_VIEWS[status] ?? 'Error';
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n    <meta charset="utf-8">\n    <title>${words} - phpAnalytics</title>\n</head>\n<body>\n    <h1>${status}</h1>\n    <p>${words}.</p>\n</body>\n</html>\n`;
}

export const HTML_TYPE = 'text/html; charset=UTF-8';

/** The router's answer to OPTIONS on a route: 200, empty, the route's methods in `Allow`. */
export function optionsAnswer(reply: FastifyReply, methods: readonly string[]): FastifyReply {
  return reply.code(200).header('allow', methods.join(',')).type(HTML_TYPE).send('');
}

/**
 * PHP's json_encode: every character past ASCII as `\uXXXX` (surrogate pairs for the rest) and,
 * unless the caller said JSON_UNESCAPED_SLASHES, `/` as `\/`; JSON_PRETTY_PRINT indents by 4.
 */
export function phpJson(value: unknown, options: { escapeSlashes: boolean; pretty?: boolean }): string {
  const text = JSON.stringify(value, null, options.pretty ? 4 : undefined).replace(
    /[\u0080-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  // A `/` can only stand inside a string in JSON text.
  return options.escapeSlashes ? text.replaceAll('/', '\\/') : text;
}

/** Answers the app writes itself (resources, `response()->json`); the others are the exception handler's. */
const APP_WRITTEN = (status: number) => status < 400 || status === 401 || status === 403 || status === 422;

function phpEncoded(payload: string, status: number): string {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return payload;
  }
  return phpJson(value, { escapeSlashes: APP_WRITTEN(status), pretty: status === 429 });
}

export function registerQuirksAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('cache-control', 'no-cache, private');
    const status = reply.statusCode;
    if ((status === 429 || status === 500) && !expectsJson(request)) {
      reply.type(HTML_TYPE);
      return errorPage(status);
    }
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('application/json')) return payload;
    reply.header('content-type', 'application/json');
    return typeof payload === 'string' ? phpEncoded(payload, status) : payload;
  });
}
