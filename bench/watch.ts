/**
 * `npm run bench:watch` (issue 34): `sitesync watch` over a simulated fleet,
 * in real time, on the machine's own clock (no clock is injected here: CPU
 * and memory are what the process really spends). Four parts, chosen with
 * BENCH_WATCH_PARTS (default all):
 *
 * - headline: 1,000 installations × 1,000 websites, 150 ms a request, the
 *   service's 60/min per client, `--budget 20/min --interval 5m`: cycle time,
 *   the slowest target's age, every installation listed once a cycle, CPU
 *   over the second cycle, peak RSS, 429s; drift on 10 random installations
 *   (after the first cycle) until /metrics shows it and its webhooks fire.
 * - scale: the cost per target at 100, 1,000 and 3,000 installations
 *   (200 websites each, a 2-minute interval: a scaled interval, stated).
 * - reload: one target's file changed in a fleet of 100 and of 1,000 targets
 *   of 1,000 websites (in process: the loader alone).
 * - replicas: 2 and 3 replicas on one PostgreSQL over 300 installations
 *   (200 websites, a 30-second interval: scaled), checks per target per
 *   replica, kill -9 of one and the time until its targets are listed
 *   again, drift healed with no site written twice.
 *
 * Sizes: BENCH_WATCH_TARGETS, BENCH_WATCH_SITES, BENCH_WATCH_INTERVAL (headline),
 * BENCH_WATCH_SCALE (e.g. 100,1000,3000).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { TargetLoader } from '../src/watch/load-targets.js';
import { durationOption } from '../src/watch/options.js';
import { startThrowawayCluster } from '../test/helpers/postgres-cluster.js';
import { cpuSeconds, memoryMb, startSimulator, startWatch, type WatchProcess } from './fleet/processes.js';

const parts = (process.env.BENCH_WATCH_PARTS ?? 'headline,scale,reload,replicas').split(',');
const LATENCY = 150;
const fmt = (value: number, digits = 1) => value.toLocaleString('en-US', { maximumFractionDigits: digits });

function tempDir(): { dir: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-watch-'));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A webhook receiver counting firing documents per target. */
async function receiver() {
  const firing = new Map<string, number>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const document = JSON.parse(body) as { target: string; status: string };
      if (document.status === 'firing') firing.set(document.target, Date.now());
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, firing, close: () => new Promise((resolve) => server.close(resolve)) };
}

const cycleEnd = (watch: WatchProcess, cycle: number) =>
  watch.line((line) => line.msg === 'cycle checked' && line.cycle === cycle);

async function metricsOf(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

async function headline(): Promise<void> {
  const targets = Number(process.env.BENCH_WATCH_TARGETS ?? 1000);
  const websites = Number(process.env.BENCH_WATCH_SITES ?? 1000);
  const interval = process.env.BENCH_WATCH_INTERVAL ?? '5m';
  const intervalS = durationOption('--interval', interval, 1000) / 1000;
  using temp = tempDir();
  const seeding = Date.now();
  const simulator = await startSimulator(temp.dir, { installations: targets, websites, latencyMs: LATENCY });
  console.log(`simulator: ${targets} × ${websites} seeded in ${fmt((Date.now() - seeding) / 1000)} s`);
  const hook = await receiver();
  const started = Date.now();
  // As a container with a 512 MB limit runs it (docs/watch.md, "Fleet sizing"); BENCH_WATCH_NODE_OPTIONS='' for V8's defaults.
  const nodeOptions = process.env.BENCH_WATCH_NODE_OPTIONS ?? '--max-old-space-size=384';
  const watch = startWatch(
    ['--interval', interval, '--budget', '20/min', '--metrics-addr', '127.0.0.1:0', '--webhook-env', 'HOOK'],
    temp.dir,
    { ...simulator.env, HOOK: hook.url, NODE_OPTIONS: nodeOptions },
  );
  const url = String((await watch.line((line) => line.msg === 'serving /metrics, /healthz, /readyz and /status')).url);
  const first = await cycleEnd(watch, 1);
  const loadedAt = Number(watch.lines.find((line) => line.msg === 'configuration loaded')?.receivedAt);
  const cpuAt1 = cpuSeconds(watch.pid);
  const at1 = Date.now();
  const drifted = await simulator.drift(10);
  const driftAt = Date.now();
  const seen = (async (): Promise<number> => {
    for (;;) {
      const text = await metricsOf(url);
      const all = drifted.every((index) =>
        new RegExp(`sitesync_websites\\{target="t${index}",class="drift"\\} [1-9]`).test(text),
      );
      if (all) return Date.now();
      await sleep(1000);
    }
  })();
  const second = await cycleEnd(watch, 2);
  const cpu = cpuSeconds(watch.pid) - cpuAt1;
  const wall = (Date.now() - at1) / 1000;
  const seenAt = await seen;
  const status = (await (await fetch(`${url}/status`)).json()) as { targets: { lastSuccessAt?: string }[] };
  const oldest = Math.max(...status.targets.map((target) => Date.now() - Date.parse(target.lastSuccessAt ?? '0')));
  const memory = memoryMb(watch.pid);
  const stats = await simulator.stats();
  // Once every interval: the time between two listings of one installation, over the whole fleet (a
  // fixed window would count a target twice or not at all whenever a listing starts a little late).
  const gaps = stats.listings.flatMap((starts) => starts.slice(1).map((at, index) => (at - starts[index]!) / 1000));
  const watch429 = [...(await metricsOf(url)).matchAll(/sitesync_api_requests_total\{[^}]*status="429"\} (\d+)/g)]
    .map((match) => Number(match[1]))
    .reduce((sum, count) => sum + count, 0);
  const alerted = drifted.filter((index) => hook.firing.has(`t${index}`));
  const alertsBy = Math.max(...alerted.map((index) => hook.firing.get(`t${index}`)!)) - driftAt;
  console.log(
    `\n### ${targets} targets × ${websites} websites, ${LATENCY} ms a request, --budget 20/min --interval ${interval}, NODE_OPTIONS=${nodeOptions || '(none)'}\n`,
  );
  console.log('| figure | value | goal |\n|---|---|---|');
  console.log(`| configuration loaded (start → ready to check) | ${fmt((loadedAt - started) / 1000)} s | |`);
  console.log(
    `| cycle 1 / cycle 2 (start → last check ended) | ${fmt(Number(first.seconds))} / ${fmt(Number(second.seconds))} s | ${intervalS} s + a check (slots spread over it) |`,
  );
  console.log(`| slowest target's age at the end of cycle 2 | ${fmt(oldest / 1000)} s | ≤ ${intervalS} s |`);
  console.log(
    `| time between two listings of an installation (min / max of ${gaps.length}) | ${fmt(Math.min(...gaps))} / ${fmt(Math.max(...gaps))} s | ≈ ${intervalS} s / ≈ ${intervalS} s |`,
  );
  console.log(
    `| CPU over cycle 2 (${fmt(cpu)} s in ${fmt(wall)} s) | ${fmt((100 * cpu) / wall)} % of a core | ≤ 25 % |`,
  );
  console.log(`| peak RSS (VmHWM) / RSS at the end | ${fmt(memory.peak, 0)} / ${fmt(memory.rss, 0)} MB | ≤ 512 MB |`);
  console.log(`| 429 answers (simulator / watch's metric) | ${stats.throttled} / ${watch429} | 0 |`);
  console.log(
    `| drift on 10 installations: all in /metrics after | ${fmt((seenAt - driftAt) / 1000)} s | ≤ ${intervalS} s + a check |`,
  );
  console.log(
    `| … and their 10 webhooks fired after | ${alerted.length}: ${fmt(alertsBy / 1000)} s | 10, ≤ ${intervalS} s + a check |`,
  );
  watch.child.kill('SIGTERM');
  await watch.exited;
  await hook.close();
  await simulator.stop();
}

async function scale(): Promise<void> {
  const sizes = (process.env.BENCH_WATCH_SCALE ?? '100,1000,3000').split(',').map(Number);
  console.log('\n### Cost per target (200 websites each, --interval 2m, 150 ms a request)\n');
  console.log('| targets | CPU per check (cycle 2) | RSS / target | peak RSS | cycle 2 |\n|---|---|---|---|---|');
  for (const targets of sizes) {
    using temp = tempDir();
    const simulator = await startSimulator(temp.dir, { installations: targets, websites: 200, latencyMs: LATENCY });
    const watch = startWatch(['--interval', '2m', '--budget', '20/min'], temp.dir, simulator.env);
    await cycleEnd(watch, 1);
    const cpu1 = cpuSeconds(watch.pid);
    const second = await cycleEnd(watch, 2);
    const cpu = cpuSeconds(watch.pid) - cpu1;
    const memory = memoryMb(watch.pid);
    console.log(
      `| ${fmt(targets)} | ${fmt((1000 * cpu) / targets, 2)} ms | ${fmt((memory.rss * 1024) / targets, 0)} KB | ${fmt(memory.peak, 0)} MB | ${fmt(Number(second.seconds))} s |`,
    );
    watch.child.kill('SIGTERM');
    await watch.exited;
    await simulator.stop();
  }
}

async function reload(): Promise<void> {
  console.log('\n### Reload after one target file changed (1,000 websites a target, the loader in process)\n');
  console.log(
    '| targets | first load | nothing changed | one target file changed | targets loaded again | root file changed |\n|---|---|---|---|---|---|',
  );
  for (const targets of [100, 1000]) {
    using temp = tempDir();
    const declared: string[] = [];
    const siteFile = (target: number, count: number) =>
      `version: 1\nwebsites:\n${Array.from({ length: count }, (_, i) => `  - domain: s${i}.t${target}.example\n`).join('')}`;
    for (let target = 0; target < targets; target++) {
      writeFileSync(join(temp.dir, `t${target}.yaml`), siteFile(target, 1000));
      declared.push(
        `  - { name: t${target}, url: "http://127.0.0.1:1", key_env: SITESYNC_K, files: [t${target}.yaml] }`,
      );
    }
    const root = (extra: string) =>
      writeFileSync(join(temp.dir, 'websites.yaml'), `version: 1\n${extra}targets:\n${declared.join('\n')}\n`);
    root('');
    const loader = new TargetLoader();
    const source = {
      files: [],
      targets: [],
      cwd: temp.dir,
      env: {},
      insecureHttp: true,
      baseline: false as const,
      heals: false,
    };
    const time = async () => {
      const started = performance.now();
      const result = await loader.load(source);
      return { ms: performance.now() - started, loaded: result.targets.filter((one) => one.reloaded).length };
    };
    const first = await time();
    const none = await time(); // the floor: every file's stamp looked at, nothing read
    writeFileSync(join(temp.dir, 't7.yaml'), siteFile(7, 1001));
    const one = await time();
    root('prune: false\n');
    const all = await time();
    console.log(
      `| ${fmt(targets)} | ${fmt(first.ms, 0)} ms | ${fmt(none.ms, 0)} ms | ${fmt(one.ms, 0)} ms | ${one.loaded} | ${fmt(all.ms, 0)} ms (${all.loaded} loaded) |`,
    );
  }
}

async function replicas(): Promise<void> {
  const cluster = await startThrowawayCluster();
  console.log(
    '\n### Replicas on one PostgreSQL (300 installations × 200 websites, --interval 30s, --self-heal drift)\n',
  );
  console.log(
    '| replicas | targets checked by more than one replica (steady) | listings per target in 2 cycles (min / max) | takeover after kill -9 (last target listed again) | drift healed / sites written twice |\n|---|---|---|---|---|',
  );
  try {
    for (const count of [2, 3]) {
      using temp = tempDir();
      const db = `fleet_${count}`;
      const admin = new pg.Client({ connectionString: `${cluster.url}/postgres` });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${db}`);
      await admin.end();
      const simulator = await startSimulator(temp.dir, { installations: 300, websites: 200, latencyMs: LATENCY });
      const env = { ...simulator.env, COORDINATION: `${cluster.url}/${db}` };
      const watches = Array.from({ length: count }, (_, index) =>
        startWatch(
          [
            '--interval',
            '30s',
            '--coordination-env',
            'COORDINATION',
            '--replica-name',
            `r${index}`,
            '--self-heal',
            'drift',
          ],
          temp.dir,
          env,
        ),
      );
      await Promise.all(watches.map((watch) => cycleEnd(watch, 3))); // joined and settled
      const steadyFrom = Date.now();
      const before = (await simulator.stats()).listings.map((starts) => starts.length);
      await Promise.all(
        watches.map((watch, index) =>
          cycleEnd(watch, Number(watches[index]!.lines.filter((line) => line.msg === 'cycle checked').length) + 2),
        ),
      );
      const after = (await simulator.stats()).listings.map((starts, index) => starts.length - before[index]!);
      const checkers = new Map<string, Set<number>>();
      for (const [index, watch] of watches.entries())
        for (const line of watch.lines)
          if (line.msg === 'checked' && Number(line.receivedAt) >= steadyFrom)
            checkers.set(String(line.target), (checkers.get(String(line.target)) ?? new Set()).add(index));
      const shared = [...checkers.values()].filter((set) => set.size > 1).length;
      const ofVictim = new Set(
        watches[0]!.lines
          .filter((line) => line.msg === 'checked' && Number(line.receivedAt) >= steadyFrom)
          .map((line) => Number(String(line.target).slice(1))),
      );
      await simulator.drift(10);
      const killedAt = Date.now();
      watches[0]!.child.kill('SIGKILL');
      let takeover = Number.NaN;
      for (;;) {
        const { listings } = await simulator.stats();
        const last = [...ofVictim].map((index) => listings[index]!.find((at) => at > killedAt));
        if (last.every((at) => at !== undefined)) {
          takeover = (Math.max(...(last as number[])) - killedAt) / 1000;
          break;
        }
        await sleep(1000);
      }
      const survivors = watches.slice(1);
      await Promise.all(
        survivors.map((watch) =>
          cycleEnd(watch, watch.lines.filter((line) => line.msg === 'cycle checked').length + 3),
        ),
      );
      const end = await simulator.stats();
      console.log(
        `| ${count} | ${shared} of ${checkers.size} | ${Math.min(...after)} / ${Math.max(...after)} | ${fmt(takeover)} s (${ofVictim.size} targets) | ${end.writes} of 10 / ${end.doubleWrites.length} |`,
      );
      for (const watch of survivors) watch.child.kill('SIGTERM');
      await Promise.all(survivors.map((watch) => watch.exited));
      await simulator.stop();
    }
  } finally {
    cluster.stop();
  }
}

for (const [name, run] of [
  ['headline', headline],
  ['scale', scale],
  ['reload', reload],
  ['replicas', replicas],
] as const)
  if (parts.includes(name)) await run();
