/**
 * A hostile service's answer (`npx tsx bench/hostile-answers.ts [MB]`, issue 33 item 5;
 * needs `npm run build`): a first page `{"data":[[[[…]]]]}` nested to about MB
 * megabytes (default 30), under the 64 MiB cap of one answer. The built CLI runs
 * `plan --timeout 5` and `watch` against it, beside the same runs against a
 * one-page empty listing (the baseline); a server in a child process. Reports
 * each run's wall time and peak RSS (the process's own maxRSS), and for watch
 * the longest a `/healthz` request (one every 20 ms) waited for its answer.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CliRun, freePort, runBuiltCli, spawnServer } from './support.js';

const KEY = 'bench-hostile-key-0123456789';
/** Loaded into the CLI's process: its peak RSS, on stderr, as it exits. */
const EMPTY = '{"data":[],"links":{"next":null},"meta":{"current_page":1,"last_page":1,"per_page":100,"total":0}}';

/** Child side: answers every request with the nested body of `bytes` (0: an empty listing). */
async function runServer(bytes: number): Promise<void> {
  const depth = Math.floor((bytes - 10) / 2);
  const body =
    bytes === 0 ? Buffer.from(EMPTY) : Buffer.from(`{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`, 'latin1');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.once('SIGTERM', () => server.close());
}

interface Run extends CliRun {
  firstLine: string;
  /** watch: the longest wait for a /healthz answer, ms. */
  healthzMs?: number;
}

function cli(args: string[], url: string, cwd: string): { child: ChildProcess; done: Promise<Run> } {
  const { child, done } = runBuiltCli(args, cwd, { SITESYNC_URL: url, SITESYNC_API_KEY: KEY });
  // The run's first line of error: what it ended on.
  const firstLine = (run: CliRun) => (run.stderr.split('\n').find((line) => line.trim() !== '') ?? '').slice(0, 160);
  return { child, done: done.then((run) => ({ ...run, firstLine: firstLine(run) })) };
}

async function get(url: string): Promise<number> {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0;
  }
}

/** watch until its first check ended (/readyz 200), asking /healthz every 20 ms; then SIGTERM. */
async function watchRun(url: string, cwd: string): Promise<Run> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { child, done } = cli(['watch', '--metrics-addr', `127.0.0.1:${port}`, '--interval', '1h'], url, cwd);
  let longest = 0;
  let ready = false;
  let exited = false;
  void done.then(() => {
    exited = true;
  });
  while (!ready && !exited) {
    const asked = performance.now();
    const status = await get(`${base}/healthz`);
    if (status === 200) longest = Math.max(longest, performance.now() - asked);
    ready = (await get(`${base}/readyz`)) === 200;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGTERM');
  return { ...(await done), healthzMs: longest };
}

async function main(): Promise<void> {
  const serverAt = process.argv.indexOf('--server');
  if (serverAt >= 0) return runServer(Number(process.argv[serverAt + 1]));
  const mb = Number(process.argv[2] ?? 30);
  const self = fileURLToPath(import.meta.url);
  const cwd = mkdtempSync(join(tmpdir(), 'bench-hostile-'));
  writeFileSync(join(cwd, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example\n');
  const servers: ChildProcess[] = [];
  try {
    const start = async (bytes: number) => {
      const { child, url } = await spawnServer(self, [String(bytes)]);
      servers.push(child);
      return url;
    };
    const empty = await start(0);
    const nested = await start(Math.round(mb * 1e6));
    const rows: [string, Run][] = [
      ['plan, empty listing (baseline)', await cli(['plan', '--timeout', '5'], empty, cwd).done],
      [`plan, ${mb} MB nested`, await cli(['plan', '--timeout', '5'], nested, cwd).done],
      ['watch, empty listing (baseline)', await watchRun(empty, cwd)],
      [`watch, ${mb} MB nested`, await watchRun(nested, cwd)],
    ];
    console.log(`hostile answer: {"data":[[[…]]]} of ${mb} MB against the built CLI\n`);
    console.log('| run | wall s | peak RSS MB | longest /healthz wait ms | exit | first line of stderr |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, run] of rows) {
      const healthz = run.healthzMs === undefined ? '' : run.healthzMs.toFixed(0);
      console.log(
        `| ${name} | ${(run.ms / 1000).toFixed(2)} | ${run.rssMb.toFixed(0)} | ${healthz} | ${run.code} | ${run.firstLine.replaceAll('|', '\\|')} |`,
      );
    }
  } finally {
    for (const child of servers) child.kill('SIGTERM');
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
