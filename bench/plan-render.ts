/**
 * Plan and JSON render in a cold process (`npx tsx bench/plan-render.ts`):
 * what `sitesync plan --format json` spends after its listing of 10,000 sites.
 * Each round is a fresh node process (the code runs once, so cold JIT is the
 * point) that loads websites.yaml with the real loader, decodes the 100
 * listing pages with the real wire decoder, then times `plan()` and
 * `renderJson()` once each. The pages come from a reference server seeded as
 * bench/cli.ts seeds it (bench/planner.ts --server), fetched once.
 *
 * `--base REF` (e.g. `--base main`) also times REF's src (`git archive`) in the
 * same run, rounds interleaved, and checks that both render byte-identical JSON.
 * BENCH_ROUNDS sets the rounds (default 15).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, spawnServer } from './support.js';

const KEY = 'bench-key-planner-0123456789'; // the key bench/planner.ts --server accepts
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SITES = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

/** websites.yaml as bench/cli.ts writes it: every site listed, 5% drifted (email on). */
function configText(count: number): string {
  const lines = ['version: 1', 'defaults:', '  exclude_ips: [10.0.0.1, 10.0.0.2]', 'websites:'];
  for (let i = 1; i <= count; i++)
    lines.push(`  - domain: site-${i}.example.com${i % 20 === 0 ? '\n    email: true' : ''}`);
  return `${lines.join('\n')}\n`;
}

interface Sample {
  plan: number;
  render: number;
  /** The process's CPU time (user + system, every thread) over both: steadier than wall time on a busy machine. */
  cpu: number;
  digest: string;
}

/** The child: one cold plan and render over `dir`'s files, with the modules of `src`. */
async function child(dir: string, src: string): Promise<void> {
  const module = (path: string) => import(pathToFileURL(join(src, path)).href);
  const { loadConfigText } = await module('config/index.ts');
  const { decodeListPage } = await module('api/wire.ts');
  const { plan, policyFromConfig } = await module('plan/index.ts');
  const { renderJson } = await module('render/json.ts');
  const { state } = loadConfigText(readFileSync(join(dir, 'websites.yaml'), 'utf8'), 'websites.yaml', {});
  const pages: unknown[] = JSON.parse(readFileSync(join(dir, 'pages.json'), 'utf8'));
  const live = pages.flatMap((body) => decodeListPage(body, 'GET /api/v1/websites').websites);
  const policy = policyFromConfig(state.policy, { only: [], skip: [], syncWriteOnly: false, today: '2026-01-01' });
  const cpuStart = process.cpuUsage();
  let start = performance.now();
  const result = plan(state.websites, live, policy);
  const planMs = performance.now() - start;
  start = performance.now();
  const text: string = renderJson(result, { target: 'http://127.0.0.1:8080' });
  const renderMs = performance.now() - start;
  const cpuUsed = process.cpuUsage(cpuStart);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1000;
  const digest = createHash('sha256').update(text).digest('hex');
  process.stdout.write(`${JSON.stringify({ plan: planMs, render: renderMs, cpu, digest } satisfies Sample)}\n`);
}

/** The 100 listing pages of a reference server seeded like bench/cli.ts's, as JSON bodies. */
async function fetchPages(): Promise<unknown[]> {
  const { child: server, url } = await spawnServer(join(ROOT, 'bench/planner.ts'), [String(SITES)]);
  try {
    const pages: unknown[] = [];
    for (let page = 1; page <= SITES / 100; page++) {
      const query = `sort_by=id&sort=asc&per_page=100&page=${page}`;
      const response = await fetch(`${url}/api/v1/websites?${query}`, { headers: { authorization: `Bearer ${KEY}` } });
      pages.push(await response.json());
    }
    return pages;
  } finally {
    server.kill('SIGTERM');
  }
}

function runChild(dir: string, src: string): Promise<Sample> {
  const node = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', dir, src], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  node.stdout.on('data', (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) =>
    node.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Sample) : reject(new Error(`child exited with ${code}`)),
    ),
  );
}

/** REF's src in a temporary directory beside a link to this checkout's node_modules. */
function checkoutSrc(ref: string, into: string): string {
  const base = join(into, 'base');
  mkdirSync(base);
  const archive = join(into, 'base.tar');
  execFileSync('git', ['archive', '--output', archive, ref, 'src'], { cwd: ROOT });
  execFileSync('tar', ['-x', '-f', archive, '-C', base]);
  symlinkSync(join(ROOT, 'node_modules'), join(base, 'node_modules'));
  return join(base, 'src');
}

async function main(): Promise<void> {
  const baseRef = process.argv.indexOf('--base') > 0 ? process.argv[process.argv.indexOf('--base') + 1] : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-plan-render-'));
  try {
    writeFileSync(join(dir, 'websites.yaml'), configText(SITES));
    writeFileSync(join(dir, 'pages.json'), JSON.stringify(await fetchPages()));
    const sources: Record<string, string> = { 'this checkout': join(ROOT, 'src') };
    if (baseRef !== undefined) sources[baseRef] = checkoutSrc(baseRef, dir);
    const samples = new Map<string, Sample[]>(Object.keys(sources).map((name) => [name, []]));
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, src] of Object.entries(sources)) {
        const sample = await runChild(dir, src);
        if (round > 0) samples.get(name)!.push(sample); // round 0 warms the disk cache
      }
    }
    const load = loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
    console.log(`load average ${load}; ${ROUNDS} cold processes each, medians\n`);
    console.log('| source | plan() | renderJson() | both | both, CPU time |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const [name, runs] of samples) {
      const ms = (pick: (sample: Sample) => number) => `${median(runs.map(pick)).toFixed(1)} ms`;
      const row = [ms((s) => s.plan), ms((s) => s.render), ms((s) => s.plan + s.render), ms((s) => s.cpu)];
      console.log(`| ${name} | ${row.join(' | ')} |`);
    }
    const digests = new Set([...samples.values()].flatMap((runs) => runs.map((sample) => sample.digest)));
    console.log(
      `\nJSON output: ${digests.size === 1 ? 'byte-identical across every run' : `**${digests.size} different outputs**`}`,
    );
    if (digests.size !== 1) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!);
else await main();
