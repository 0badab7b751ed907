/**
 * One cold process of bench/config-build.ts (bundled first, as the CLI is):
 * the configuration's parse, schema check and build, then the decoding of the
 * listing pages, each once; prints each phase's wall and CPU milliseconds as
 * one JSON line. Arguments: the websites file, the pages (a JSON array of bodies).
 */
import { readFileSync } from 'node:fs';
import { decodeListPage } from '../src/api/wire.js';
import { buildState } from '../src/config/build.js';
import { quickParse } from '../src/config/quick-parse.js';
import { schemaAccepts } from '../src/config/schema.js';

const [file, pagesFile] = process.argv.slice(2) as [string, string];
const text = readFileSync(file, 'utf8');
const pages = JSON.parse(readFileSync(pagesFile, 'utf8')) as string[];
const ms: Record<string, number> = {};
let wall = 0;
let cpu = 0;
const cpuNow = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const start = (): void => {
  wall = performance.now();
  cpu = cpuNow();
};
const stop = (phase: string): void => {
  const cpuEnd = cpuNow();
  ms[phase] = performance.now() - wall;
  ms[`${phase} cpu`] = cpuEnd - cpu;
};
const fail = (what: string): never => {
  throw new Error(what);
};

start();
const quick = quickParse(text, 'websites.yaml') ?? fail('the bench file did not take the quick way');
stop('parse');
const config: unknown = quick.data;
start();
if (!schemaAccepts(config)) fail('the bench file failed the schema');
stop('schema');
start();
const built = buildState([{ source: quick.source, config: config as never }], {}, { secrets: 'check' });
stop('build');
if (!built.state) fail('the bench file did not build');
start();
const bodies = pages.map((page) => JSON.parse(page) as unknown);
stop('json');
start();
let sites = 0;
for (const [i, body] of bodies.entries()) sites += decodeListPage(body, `page ${i + 1}`).websites.length;
stop('decode');
if (sites !== built.state?.websites.length) fail('the pages did not decode');
process.stdout.write(`${JSON.stringify(ms)}\n`);
