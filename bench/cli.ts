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
 * Every process (baselines too) runs with a tiny `--import` hook that prints
 * its CPU time (user + system) and peak RSS at exit: on a busy machine, CPU
 * time compares far more steadily than wall time, so both are shown.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, spawnServer, writeSitesConfig } from './support.js';

const KEY = 'bench-key-planner-0123456789'; // the key bench/planner.ts --server accepts
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/sitesync.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('cpu='+(u.userCPUTime+u.systemCPUTime)+' maxrss='+u.maxRSS+'\\n')})`;

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
  cpuMs: number;
  rssMb: number;
  code: number | null;
}

async function run(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<Run> {
  const start = performance.now();
  const child = spawn(process.execPath, ['--import', HOOK, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const ms = performance.now() - start;
  if (code !== 0 && code !== 2) throw new Error(`node ${args.join(' ')} exited with ${code}: ${stderr}`);
  const usage = /cpu=(\d+) maxrss=(\d+)/.exec(stderr);
  return { ms, cpuMs: Number(usage?.[1]) / 1000, rssMb: Number(usage?.[2]) / 1024, code };
}

interface Timing {
  wall: number;
  cpu: number;
  /** The worst of the rounds. */
  rss: number;
}

/** Median wall and CPU time, and peak RSS, of each command; rounds interleaved. */
async function timeAll(commands: Record<string, readonly string[]>, env?: NodeJS.ProcessEnv) {
  const samples = new Map<string, Run[]>(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const result = await run(args, env);
      if (round > 0) samples.get(name)!.push(result); // round 0 warms the disk cache
    }
  }
  const timings: Record<string, Timing> = {};
  for (const [name, runs] of samples) {
    timings[name] = {
      wall: median(runs.map((one) => one.ms)),
      cpu: median(runs.map((one) => one.cpuMs)),
      rss: Math.max(...runs.map((one) => one.rssMb)),
    };
  }
  return timings;
}

const fmt = (ms: number): string => `${ms.toFixed(0)} ms`;
const both = (t: Timing): string => `${fmt(t.wall)} (CPU ${fmt(t.cpu)})`;
const ratios = (t: Timing, base: Timing): string =>
  `${(t.wall / base.wall).toFixed(2)}× (CPU ${(t.cpu / base.cpu).toFixed(2)}×)`;
const verdict = (ok: boolean): string => (ok ? 'met' : '**not met**');

async function startUp(small: string, large: string): Promise<void> {
  const start = await timeAll({
    node: ['-e', '0'],
    version: [BIN, '--version'],
    validate20: [BIN, 'validate', '-f', small],
    validate10k: [BIN, 'validate', '-f', large],
  });
  const node = start.node!;
  console.log(`| \`node -e 0\` | ${both(node)} | baseline |`);
  for (const [name, label] of [
    ['version', '`sitesync --version`'],
    ['validate20', '`sitesync validate`, 20 sites'],
  ] as const) {
    const timing = start[name]!;
    console.log(
      `| ${label} | ${both(timing)} = ${ratios(timing, node)} | ≤ 2×: ${verdict(timing.wall / node.wall <= 2)} |`,
    );
  }
  const large10k = start.validate10k!;
  const beyond = large10k.wall - node.wall;
  console.log(
    `| \`sitesync validate\`, 10,000 sites | ${both(large10k)}: ${fmt(beyond)} (CPU ${fmt(large10k.cpu - node.cpu)}) beyond node's start; peak RSS ${large10k.rss.toFixed(0)} MB | ≤ 250 ms: ${verdict(beyond <= 250)} |`,
  );
}

async function main(): Promise<void> {
  // npm run build: tsc, then the bundle that bin/sitesync.js runs.
  await run(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
  await run(['scripts/bundle.mjs']);
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-cli-'));
  const servers: Array<{ kill(signal: NodeJS.Signals): boolean }> = [];
  try {
    const small = writeSitesConfig(dir, 20);
    const large = writeSitesConfig(dir, 10_000);
    const huge = writeSitesConfig(dir, 100_000);
    const bare = join(dir, 'bare.mjs');
    writeFileSync(bare, bareLoop(pathToFileURL(join(ROOT, 'node_modules/undici/index.js')).href));
    const load = loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
    console.log(`load average ${load}; ${ROUNDS} rounds, medians\n`);
    console.log('| benchmark | result | goal |');
    console.log('| --- | --- | --- |');
    await startUp(small, large);

    // Two servers: one account of 10,000 sites (plan against the bare loop), one of 100,000.
    const env = { SITESYNC_API_KEY: KEY };
    const { child: server10k, url: url10k } = await spawnServer(join(ROOT, 'bench/planner.ts'), ['10000']);
    servers.push(server10k);
    const plan10k = [BIN, 'plan', '-f', large, '--url', url10k, '--rate-limit', '0', '--format', 'json'];
    const timed = await timeAll({ bare: [bare, url10k, KEY, '100'], plan: plan10k }, env);
    const [planned, baseline] = [timed.plan!, timed.bare!];
    console.log(
      `| bare node loop, the same 100 pages | ${both(baseline)}; peak RSS ${baseline.rss.toFixed(0)} MB | baseline |`,
    );
    console.log(
      `| \`sitesync plan\`, 10,000 live sites | ${both(planned)} = ${ratios(planned, baseline)} | ≤ 1.5×: ${verdict(planned.wall / baseline.wall <= 1.5)} |`,
    );
    console.log(
      `| same, peak RSS (worst of ${ROUNDS}) | ${planned.rss.toFixed(0)} MB | ≤ 110 MB: ${verdict(planned.rss <= 110)} |`,
    );

    const { child: server, url } = await spawnServer(join(ROOT, 'bench/planner.ts'), ['100000']);
    servers.push(server);
    for (const [label, args] of [
      ['validate', [BIN, 'validate', '-f', huge]],
      ['plan', [BIN, 'plan', '-f', huge, '--url', url, '--rate-limit', '0', '--format', 'json']],
      ['export', [BIN, 'export', '--url', url, '--rate-limit', '0', '--out', join(dir, 'export.yaml')]],
    ] as const) {
      const result = await run(args, env);
      console.log(
        `| \`sitesync ${label}\`, 100,000 sites | ${fmt(result.ms)} (CPU ${fmt(result.cpuMs)}), peak RSS ${result.rssMb.toFixed(0)} MB (exit ${result.code}) | completes |`,
      );
    }
  } finally {
    for (const server of servers) server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
