/**
 * Plan and JSON render in a cold process (`npx tsx bench/plan-render.ts`):
 * what `sitesync plan --format json` spends after its listing of 10,000 sites.
 * Each round is a fresh node process (the code runs once, so cold JIT is the
 * point) that loads websites.yaml with the real loader, decodes the 100
 * listing pages with the real wire decoder, then times `plan()` and
 * `renderJson()` once each. The code is bundled with esbuild as
 * scripts/bundle.mjs bundles the CLI (tsx would wrap every function), and
 * runs with the CLI's V8 flag. The
 * pages come from a reference server seeded as bench/cli.ts seeds it
 * (bench/planner.ts --server), fetched once.
 *
 * `--base REF` (e.g. `--base main`) also times REF's src (`git archive`) in the
 * same run, rounds interleaved, and checks that both render byte-identical JSON.
 * BENCH_ROUNDS sets the rounds (default 15).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
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

/** The modules one round needs, from one src directory. */
const ENTRY = (src: string) => `
export { loadConfigText } from '${src}/config/index.ts';
export { decodeListPage } from '${src}/api/wire.ts';
export { plan, policyFromConfig } from '${src}/plan/index.ts';
export { renderJson } from '${src}/render/json.ts';
`;

/**
 * One round: argv = bundle, data directory. Prints plan and render wall time,
 * the process's CPU time over both (user + system, every thread: steadier than
 * wall time on a busy machine), and a digest of the JSON.
 */
const CHILD = `
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const [bundle, dir] = process.argv.slice(2);
const { loadConfigText, decodeListPage, plan, policyFromConfig, renderJson } = await import(bundle);
const { state } = loadConfigText(readFileSync(join(dir, 'websites.yaml'), 'utf8'), 'websites.yaml', {});
const pages = JSON.parse(readFileSync(join(dir, 'pages.json'), 'utf8'));
const live = pages.flatMap((body) => decodeListPage(body, 'GET /api/v1/websites').websites);
const policy = policyFromConfig(state.policy, { only: [], skip: [], syncWriteOnly: false, today: '2026-01-01' });
const cpuStart = process.cpuUsage();
let start = performance.now();
const result = plan(state.websites, live, policy);
const planMs = performance.now() - start;
start = performance.now();
const text = renderJson(result, { target: 'http://127.0.0.1:8080' });
const renderMs = performance.now() - start;
const used = process.cpuUsage(cpuStart);
const digest = createHash('sha256').update(text).digest('hex');
process.stdout.write(JSON.stringify({ plan: planMs, render: renderMs, cpu: (used.user + used.system) / 1000, digest }) + '\\n');
`;

interface Sample {
  plan: number;
  render: number;
  cpu: number;
  digest: string;
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

/** `src`'s modules as one ES module, as the CLI's bundle holds them. */
async function bundle(src: string, outfile: string): Promise<string> {
  await build({
    stdin: { contents: ENTRY(src), resolveDir: src, loader: 'ts' },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

function runChild(dir: string, bundled: string): Promise<Sample> {
  // The young generation as the CLI keeps it for a one-shot command (src/cli/bin.ts).
  const node = spawn(process.execPath, ['--semi-space-growth-factor=1', join(dir, 'child.mjs'), bundled, dir], {
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

const baseRef = process.argv.indexOf('--base') > 0 ? process.argv[process.argv.indexOf('--base') + 1] : undefined;
const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-plan-render-'));
try {
  writeFileSync(join(dir, 'websites.yaml'), configText(SITES));
  writeFileSync(join(dir, 'pages.json'), JSON.stringify(await fetchPages()));
  writeFileSync(join(dir, 'child.mjs'), CHILD);
  // The bundle loads ajv's runtime helpers with require(), as the CLI's does.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const bundles: Record<string, string> = { 'this checkout': await bundle(join(ROOT, 'src'), join(dir, 'this.mjs')) };
  if (baseRef !== undefined) bundles[baseRef] = await bundle(checkoutSrc(baseRef, dir), join(dir, 'base.mjs'));
  const samples = new Map<string, Sample[]>(Object.keys(bundles).map((name) => [name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, bundled] of Object.entries(bundles)) {
      const sample = await runChild(dir, bundled);
      if (round > 0) samples.get(name)!.push(sample); // round 0 warms the disk cache
    }
  }
  const load = loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
  console.log(`load average ${load}; ${ROUNDS} cold processes each, medians (and the fastest round)\n`);
  console.log('| source | plan() | renderJson() | both | both, fastest round | both, CPU time |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [name, runs] of samples) {
    const ms = (pick: (sample: Sample) => number) => `${median(runs.map(pick)).toFixed(1)} ms`;
    const fastest = `${Math.min(...runs.map((s) => s.plan + s.render)).toFixed(1)} ms`;
    const row = [ms((s) => s.plan), ms((s) => s.render), ms((s) => s.plan + s.render), fastest, ms((s) => s.cpu)];
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
