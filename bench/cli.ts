/**
 * CLI benchmark (`npx tsx bench/cli.ts`, part of `npm run bench`): the built
 * CLI (tsc and the bundle, as `npm run build`; then `node bin/sitesync.js`) as whole processes, beside
 * bare node baselines in the same run, rounds interleaved so both see the same
 * machine:
 * 1. start-up: `--version` and `validate` of a 20-site file against `node -e 0`
 *    (goal ≤ 2×);
 * 2. `validate` of 10,000 sites: time beyond `node -e 0` (goal ≤ 0.25 s);
 * 3. `plan` on 10,000 live sites (reference server in another process, no
 *    throttle) against a bare node process fetching the same 100 pages with
 *    undici (goal ≤ 1.5×), and the CLI's peak RSS (goal ≤ 110 MB);
 * 4. 100,000 sites: validate, plan and export complete; time and peak RSS.
 * Peak RSS comes from a tiny `--import` hook that prints `maxRSS` at exit, in
 * separate runs so it costs the timed runs nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, spawnServer } from './support.js';

const KEY = 'bench-key-planner-0123456789'; // the key bench/planner.ts --server accepts
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/sitesync.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))`;

const domain = (i: number): string => `site-${i}.example.com`;

/** websites.yaml with `count` sites, as planner.ts writes it: every site listed, 5% drifted (email on). */
function writeConfig(dir: string, count: number): string {
  const lines = ['version: 1', 'defaults:', '  exclude_ips: [10.0.0.1, 10.0.0.2]', 'websites:'];
  for (let i = 1; i <= count; i++) lines.push(`  - domain: ${domain(i)}${i % 20 === 0 ? '\n    email: true' : ''}`);
  const file = join(dir, `websites-${count}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The bare baseline for plan: plain node, undici, the same 100 pages parsed, nothing else. */
const bareLoop = (undici: string) => `
import { Pool } from '${undici}';
const [url, key, pages] = process.argv.slice(2);
const pool = new Pool(url);
const sites = [];
for (let page = 1; page <= Number(pages); page++) {
  const { body } = await pool.request({ method: 'GET', path: '/api/v1/websites?sort_by=id&sort=asc&per_page=100&page=' + page, headers: { authorization: 'Bearer ' + key } });
  sites.push(...(await body.json()).data);
}
await pool.close();
process.stdout.write(sites.length + '\\n');
`;

interface Run {
  ms: number;
  rssMb?: number;
  code: number | null;
  stdout: string;
}

async function run(args: readonly string[], options: { env?: NodeJS.ProcessEnv; rss?: boolean } = {}): Promise<Run> {
  const argv = options.rss ? ['--import', RSS_HOOK, ...args] : [...args];
  const start = performance.now();
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const ms = performance.now() - start;
  const rss = /maxrss=(\d+)/.exec(stderr);
  const result: Run = { ms, code, stdout };
  if (rss) result.rssMb = Number(rss[1]) / 1024;
  if (code !== 0 && code !== 2) throw new Error(`node ${args.join(' ')} exited with ${code}: ${stderr}`);
  return result;
}

/** Median wall time of each command, rounds interleaved. */
async function timeAll(commands: Record<string, readonly string[]>, env?: NodeJS.ProcessEnv) {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const { ms } = await run(args, env ? { env } : {});
      if (round > 0) samples[name]!.push(ms); // round 0 warms the disk cache
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

const fmt = (ms: number): string => `${ms.toFixed(0)} ms`;
const verdict = (ok: boolean): string => (ok ? 'met' : '**not met**');

async function main(): Promise<void> {
  // npm run build: tsc, then the bundle that bin/sitesync.js runs.
  await run(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
  await run(['scripts/bundle.mjs']);
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-cli-'));
  const servers: Array<{ kill(signal: NodeJS.Signals): boolean }> = [];
  try {
    const small = writeConfig(dir, 20);
    const large = writeConfig(dir, 10_000);
    const huge = writeConfig(dir, 100_000);
    const bare = join(dir, 'bare.mjs');
    writeFileSync(bare, bareLoop(pathToFileURL(join(ROOT, 'node_modules/undici/index.js')).href));

    console.log(
      `load average ${(await import('node:os'))
        .loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')}; ${ROUNDS} rounds, medians\n`,
    );
    console.log('| benchmark | result | goal |');
    console.log('| --- | --- | --- |');
    const start = await timeAll({
      node: ['-e', '0'],
      version: [BIN, '--version'],
      validate20: [BIN, 'validate', '-f', small],
      validate10k: [BIN, 'validate', '-f', large],
    });
    const node = start.node!;
    for (const [name, label] of [
      ['version', '`sitesync --version`'],
      ['validate20', '`sitesync validate`, 20 sites'],
    ] as const) {
      const ratio = start[name]! / node;
      console.log(
        `| ${label} | ${fmt(start[name]!)} = ${ratio.toFixed(2)}× \`node -e 0\` (${fmt(node)}) | ≤ 2×: ${verdict(ratio <= 2)} |`,
      );
    }
    const beyond = start.validate10k! - node;
    console.log(
      `| \`sitesync validate\`, 10,000 sites | ${fmt(start.validate10k!)}, ${fmt(beyond)} beyond node's start | ≤ 250 ms: ${verdict(beyond <= 250)} |`,
    );

    const { child: server, url } = await spawnServer(join(ROOT, 'bench/planner.ts'), ['100000']);
    servers.push(server);
    const env = { SITESYNC_API_KEY: KEY };
    const plan = (file: string) => [BIN, 'plan', '-f', file, '--url', url, '--rate-limit', '0', '--format', 'json'];
    // Two servers: one account of 100,000 sites, one of 10,000 (the plan-versus-bare comparison).
    const { child: server10k, url: url10k } = await spawnServer(join(ROOT, 'bench/planner.ts'), ['10000']);
    servers.push(server10k);
    const plan10k = [BIN, 'plan', '-f', large, '--url', url10k, '--rate-limit', '0', '--format', 'json'];
    const timed = await timeAll({ bare: [bare, url10k, KEY, '100'], plan: plan10k }, env);
    const planRss = await run(plan10k, { env, rss: true });
    const ratio = timed.plan! / timed.bare!;
    console.log(
      `| \`sitesync plan\`, 10,000 live sites | ${fmt(timed.plan!)} = ${ratio.toFixed(2)}× the bare loop (${fmt(timed.bare!)}, 100 pages) | ≤ 1.5×: ${verdict(ratio <= 1.5)} |`,
    );
    console.log(`| same, peak RSS | ${planRss.rssMb!.toFixed(0)} MB | ≤ 110 MB: ${verdict(planRss.rssMb! <= 110)} |`);

    for (const [label, args] of [
      ['validate', [BIN, 'validate', '-f', huge]],
      ['plan', plan(huge)],
      ['export', [BIN, 'export', '--url', url, '--rate-limit', '0', '--out', join(dir, 'export.yaml')]],
    ] as const) {
      const result = await run(args, { env, rss: true });
      console.log(
        `| \`sitesync ${label}\`, 100,000 sites | ${fmt(result.ms)}, peak RSS ${result.rssMb!.toFixed(0)} MB (exit ${result.code}) | completes |`,
      );
    }
  } finally {
    for (const server of servers) server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
