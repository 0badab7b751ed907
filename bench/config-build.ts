/**
 * Cold-process benchmark of what `plan` does on its own thread for 10,000
 * sites besides waiting for pages (issue 25, listing while parsing): the
 * configuration's parse, schema check and build, and the decoding of 100
 * listing pages of 100 sites. Each round is a fresh node process that does
 * every phase once, as the CLI does: the code runs cold (interpreter,
 * baseline JIT), which a warm loop (bench/config.ts) never shows.
 * The file is bench/cli.ts's (5% with `email: true`, defaults exclude_ips);
 * the pages are fetched once, as text, from a reference server seeded as
 * bench/cli.ts seeds it (bench/planner.ts --server).
 * Run: npx tsx bench/config-build.ts   (BENCH_ROUNDS, default 9)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, spawnServer, writeSitesConfig } from './support.js';

const SITES = 10_000;
const PAGES = SITES / 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const KEY = 'bench-key-planner-0123456789'; // the key bench/planner.ts --server accepts
const SELF = fileURLToPath(import.meta.url);
const PHASES = ['parse', 'schema', 'build', 'json', 'decode'] as const;
type Phase = (typeof PHASES)[number];

/** One cold process: every phase once, its milliseconds as one JSON line. */
async function child(dir: string, file: string): Promise<void> {
  const { quickParse } = await import('../src/config/quick-parse.js');
  const { schemaAccepts } = await import('../src/config/schema.js');
  const { buildState } = await import('../src/config/build.js');
  const { decodeListPage } = await import('../src/api/wire.js');
  const text = readFileSync(file, 'utf8');
  const pages = JSON.parse(readFileSync(join(dir, 'pages.json'), 'utf8')) as string[];
  const ms: Partial<Record<Phase, number>> = {};
  const timed = <T>(phase: Phase, run: () => T): T => {
    const started = performance.now();
    const result = run();
    ms[phase] = performance.now() - started;
    return result;
  };
  const quick = timed('parse', () => quickParse(text, 'websites.yaml'));
  if (!quick) throw new Error('the bench file did not take the quick way');
  const config: unknown = quick.data;
  const started = performance.now();
  if (!schemaAccepts(config)) throw new Error('the bench file failed the schema');
  ms.schema = performance.now() - started;
  const built = timed('build', () => buildState([{ source: quick.source, config }], {}, { secrets: 'check' }));
  if (built.state?.websites.length !== SITES) throw new Error('the bench file did not build');
  const bodies = timed('json', () => pages.map((page) => JSON.parse(page) as unknown));
  const decoded = timed('decode', () => bodies.map((body, i) => decodeListPage(body, `page ${i + 1}`).websites.length));
  if (decoded.reduce((a, b) => a + b, 0) !== SITES) throw new Error('the pages did not decode');
  process.stdout.write(`${JSON.stringify(ms)}\n`);
}

async function round(dir: string, file: string): Promise<Record<Phase, number>> {
  const proc = spawn(process.execPath, [...process.execArgv, SELF, '--child', dir, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise<number | null>((resolve) => proc.once('close', resolve));
  if (code !== 0) throw new Error(`bench child exited with ${code}`);
  return JSON.parse(out) as Record<Phase, number>;
}

async function fetchPages(url: string): Promise<string[]> {
  const pages: string[] = [];
  for (let page = 1; page <= PAGES; page++) {
    const query = `sort_by=id&sort=asc&per_page=100&page=${page}`;
    const response = await fetch(`${url}/api/v1/websites?${query}`, { headers: { authorization: `Bearer ${KEY}` } });
    pages.push(await response.text());
  }
  return pages;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-config-build-'));
  const server = await spawnServer(join(SELF, '../planner.ts'), [String(SITES)]);
  try {
    writeFileSync(join(dir, 'pages.json'), JSON.stringify(await fetchPages(server.url)));
    server.child.kill('SIGTERM');
    const file = writeSitesConfig(dir, SITES);
    const samples: Record<Phase, number>[] = [];
    for (let i = 0; i < ROUNDS; i++) samples.push(await round(dir, file));
    const load = loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
    console.log(
      `${SITES.toLocaleString('en')} sites, ${PAGES} pages; ${ROUNDS} cold processes, medians (ms); load ${load}\n`,
    );
    console.log(`| ${PHASES.join(' | ')} | schema + build + decode |`);
    console.log(`|${' --- |'.repeat(PHASES.length + 1)}`);
    const medians = PHASES.map((phase) => median(samples.map((sample) => sample[phase])));
    const ours = median(samples.map((sample) => sample.schema + sample.build + sample.decode));
    console.log(`| ${medians.map((value) => value.toFixed(1)).join(' | ')} | ${ours.toFixed(1)} |`);
  } finally {
    server.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!);
else await main();
