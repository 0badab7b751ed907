/**
 * Issue 24, items 7–11: raw requests played against the deployed phpAnalytics v31 and its raw
 * answers, one row each. `{key}`, `{id}` (a website of the key's account) and `{url}` are filled
 * in by quirks-v31.test.ts. Every answer also carries `Cache-Control: no-cache, private`, and a
 * JSON answer `Content-Type: application/json` (item 11), which the test checks on every row.
 */

export interface QuirksRow {
  item: number;
  name: string;
  method: string;
  path: string;
  /** Sent as given: no Authorization or Accept unless listed. */
  headers?: Record<string, string>;
  /** Text is sent as UTF-8; a Buffer as its bytes (and without any Content-Type unless listed). */
  body?: string | Buffer;
  status: number;
  /** Headers expected; null = absent. */
  answerHeaders?: Record<string, string | null>;
  /** The whole body, byte for byte. */
  text?: string;
  /** The body read as JSON, in part. */
  match?: Record<string, unknown>;
  /** Text the body holds (an HTML page). */
  contains?: string;
}

const JSON_ACCEPT = { accept: 'application/json' };
const KEYED = { ...JSON_ACCEPT, authorization: 'Bearer {key}' };
const FORM = { ...KEYED, 'content-type': 'application/x-www-form-urlencoded' };
const JSON_BODY = { ...KEYED, 'content-type': 'application/json' };
const UNAUTHENTICATED = '{"message":"Unauthenticated."}';
const DOMAIN_REQUIRED = '{"message":{"domain":["The domain field is required."]},"status":422}';
const SERVER_ERROR = '{"message":"Server Error"}';
/** Five labels of 60 characters: 312 characters in all. */
const LONG_DOMAIN = `${['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(60)).join('.')}.example`;

export const ROWS: QuirksRow[] = [
  {
    item: 7,
    name: '?api_token= wins over a bad Bearer header',
    method: 'GET',
    path: '/api/v1/websites?api_token={key}',
    headers: { ...JSON_ACCEPT, authorization: 'Bearer not-the-key-0123456789' },
    status: 200,
  },
  {
    item: 7,
    name: 'lower-case "bearer" is no Bearer token: 401 without WWW-Authenticate',
    method: 'GET',
    path: '/api/v1/websites',
    headers: { ...JSON_ACCEPT, authorization: 'bearer {key}' },
    status: 401,
    answerHeaders: { 'www-authenticate': null },
    text: UNAUTHENTICATED,
  },
  {
    item: 7,
    name: 'Basic auth with the key as password',
    method: 'GET',
    path: '/api/v1/websites',
    headers: { ...JSON_ACCEPT, authorization: 'Basic {basic}' },
    status: 200,
  },
  {
    item: 7,
    name: 'api_token in a form body',
    method: 'POST',
    path: '/api/v1/websites',
    headers: { ...JSON_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'api_token={key}&domain=form-token.quirks.example&privacy=0',
    status: 201,
    match: { data: { domain: 'form-token.quirks.example' } },
  },
  {
    item: 9,
    name: 'OPTIONS: 200, empty, Allow, before the throttle and authentication',
    method: 'OPTIONS',
    path: '/api/v1/websites',
    status: 200,
    answerHeaders: { allow: 'GET,HEAD,POST', 'x-ratelimit-limit': null },
    text: '',
  },
  {
    item: 9,
    // Its body is Laravel's wording (issue 37, quirks-v31-round4-rows.ts).
    name: 'an unknown route: 404 without rate-limit headers, before authentication',
    method: 'GET',
    path: '/api/v2/websites',
    headers: JSON_ACCEPT,
    status: 404,
    answerHeaders: { 'x-ratelimit-limit': null },
  },
  {
    item: 9,
    name: 'GET /api/v1/account: the account and plan.features, throttled like every API route',
    method: 'GET',
    path: '/api/v1/account',
    headers: KEYED,
    status: 200,
    answerHeaders: { 'x-ratelimit-limit': '1000' },
    match: { data: { plan: { features: { websites: -1, api: 1 } } }, status: 200 },
  },
  {
    item: 9,
    name: 'GET /api/v1/stats/{id} without parameters names name, from and to',
    method: 'GET',
    path: '/api/v1/stats/{id}',
    headers: KEYED,
    status: 422,
    text: '{"message":{"name":["The name field is required."],"from":["The from field is required."],"to":["The to field is required."]},"status":422}',
  },
  {
    item: 10,
    name: 'JSON email: true is accepted (and echoed)',
    method: 'POST',
    path: '/api/v1/websites',
    headers: JSON_BODY,
    body: '{"domain":"json-true.quirks.example","privacy":0,"email":true}',
    status: 201,
    match: { data: { domain: 'json-true.quirks.example', email: true } },
  },
  {
    item: 10,
    name: 'a domain over 255 characters: both failing rules',
    method: 'POST',
    path: '/api/v1/websites',
    headers: FORM,
    body: `domain=${LONG_DOMAIN}`,
    status: 422,
    text: '{"message":{"domain":["The domain field must not be greater than 255 characters.","Invalid domain name."]},"status":422}',
  },
  {
    item: 10,
    name: 'privacy=abc: not an integer, and 3 characters are not between 0 and 2',
    method: 'POST',
    path: '/api/v1/websites',
    headers: FORM,
    body: 'domain=privacy-abc.quirks.example&privacy=abc',
    status: 422,
    text: '{"message":{"privacy":["The privacy field must be an integer.","The privacy field must be between 0 and 2."]},"status":422}',
  },
  {
    item: 10,
    name: '"exa mple.com" is stored',
    method: 'POST',
    path: '/api/v1/websites',
    headers: FORM,
    body: 'domain=exa+mple.com&privacy=0',
    status: 201,
    match: { data: { domain: 'exa mple.com' } },
  },
  {
    item: 10,
    name: '"-dash.example" is stored',
    method: 'POST',
    path: '/api/v1/websites',
    headers: FORM,
    body: 'domain=-dash.example&privacy=0',
    status: 201,
    match: { data: { domain: '-dash.example' } },
  },
  {
    item: 10,
    name: 'domain[]=… is a 500',
    method: 'POST',
    path: '/api/v1/websites',
    headers: FORM,
    body: 'domain[]=array.quirks.example&privacy=0',
    status: 500,
    text: SERVER_ERROR,
  },
  {
    item: 10,
    name: 'malformed JSON reads as no fields',
    method: 'POST',
    path: '/api/v1/websites',
    headers: JSON_BODY,
    body: '{"domain":',
    status: 422,
    text: DOMAIN_REQUIRED,
  },
  {
    item: 10,
    name: 'an XML body reads as no fields',
    method: 'POST',
    path: '/api/v1/websites',
    headers: { ...KEYED, 'content-type': 'application/xml' },
    body: '<website><domain>xml.quirks.example</domain></website>',
    status: 422,
    text: DOMAIN_REQUIRED,
  },
  {
    item: 10,
    name: 'a body without Content-Type reads as no fields',
    method: 'POST',
    path: '/api/v1/websites',
    headers: KEYED,
    body: Buffer.from('domain=untyped.quirks.example'),
    status: 422,
    text: DOMAIN_REQUIRED,
  },
  {
    item: 10,
    name: 'JSON declared as iso-8859-1 is read',
    method: 'POST',
    path: '/api/v1/websites',
    headers: { ...KEYED, 'content-type': 'application/json; charset=iso-8859-1' },
    body: '{"domain":"latin-json.quirks.example","privacy":0}',
    status: 201,
    match: { data: { domain: 'latin-json.quirks.example' } },
  },
  {
    item: 10,
    name: 'a Latin-1 form body is stored with ? for the byte UTF-8 cannot read',
    method: 'POST',
    path: '/api/v1/websites',
    headers: { ...KEYED, 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
    body: 'domain=b%FCcher-latin.example&privacy=0',
    status: 201,
    match: { data: { domain: 'b?cher-latin.example' } },
  },
  {
    item: 10,
    name: 'a 70 KB exclude_params is a 500 (MySQL: Data too long)',
    method: 'POST',
    path: '/api/v1/websites',
    headers: FORM,
    body: `domain=long-params.quirks.example&privacy=0&exclude_params=${'p'.repeat(70 * 1024)}`,
    status: 500,
    text: SERVER_ERROR,
  },
  {
    item: 10,
    name: 'PUT exclude_bots= (empty) is not an integer',
    method: 'PUT',
    path: '/api/v1/websites/{id}',
    headers: FORM,
    body: 'exclude_bots=',
    status: 422,
    text: '{"message":{"exclude_bots":["The exclude bots field must be an integer."]},"status":422}',
  },
  {
    item: 11,
    name: 'favorite=true in a list request stays in the page links',
    method: 'GET',
    path: '/api/v1/websites?favorite=true',
    headers: KEYED,
    status: 200,
    match: {
      links: {
        first: '{url}/api/v1/websites?search_by=domain&favorite=true&sort_by=id&sort=desc&per_page=10&page=1',
      },
    },
  },
];
