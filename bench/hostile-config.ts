/**
 * A 4 MB websites.yaml of 190,000 unknown top-level keys (under the 4 MiB cap;
 * issue 33 item 6), against the built CLI (`npm run build`, then
 * `npx tsx bench/hostile-config.ts`): `validate` (wall time, peak RSS),
 * SIGTERM into `validate` once it parses (how long until it exits), and `watch`
 * reloading it on SIGHUP (the longest a `/healthz` request, one every 20 ms,
 * waited for its answer during the reload, and peak RSS). Beside each, the same
 * run on a one-site file: the baseline.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server/index.js';
import { unknownKeysFile } from '../test/config/helpers.js';
import { insertWebsites } from '../test/helpers/stored-website.js';
import { type CliRun, freePort, runBuiltCli } from './support.js';

const KEY = 'bench-config-key-0123456789';
const SMALL = 'version: 1\nwebsites:\n  - domain: a.example\n';

interface Run extends CliRun {
  healthzMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM `afterMs` into `validate` (past start-up and reading: while it parses): milliseconds from the signal to the exit. */
async function sigtermDuringValidate(cwd: string, afterMs: number): Promise<{ ms: number; code: number | null }> {
  const { child, done } = runBuiltCli(['validate'], cwd);
  await sleep(afterMs);
  const sent = performance.now();
  child.kill('SIGTERM');
  const run = await done;
  return { ms: performance.now() - sent, code: run.code };
}

/** watch on `cwd` (one-site file), then `text` written and SIGHUP: the longest /healthz wait until the reload logged its end. */
async function watchReload(cwd: string, url: string, text: string): Promise<Run> {
  writeFileSync(join(cwd, 'websites.yaml'), SMALL);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const watch = runBuiltCli(['watch', '--metrics-addr', `127.0.0.1:${port}`, '--interval', '1h'], cwd, {
    SITESYNC_URL: url,
    SITESYNC_API_KEY: KEY,
  });
  // Ready, and its first lines (the load, the check) have reached us: what follows is the reload's.
  while ((await fetch(`${base}/readyz`).catch(() => undefined))?.status !== 200 || !/checked/.test(watch.stderr()))
    await sleep(20);
  writeFileSync(join(cwd, 'websites.yaml'), text);
  const before = watch.stderr().length;
  watch.child.kill('SIGHUP');
  let longest = 0;
  const reloaded = () => /configuration (invalid|loaded)/.test(watch.stderr().slice(before));
  while (!reloaded()) {
    const asked = performance.now();
    const answered = await fetch(`${base}/healthz`).catch(() => undefined);
    if (answered === undefined) break; // watch went away (killed by memory, say): the row's exit code tells
    longest = Math.max(longest, performance.now() - asked);
    await sleep(20);
  }
  watch.child.kill('SIGTERM');
  return { ...(await watch.done), healthzMs: longest };
}

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'bench-config-'));
  const server = await startServer({ port: 0, db: ':memory:', keys: [KEY], throttlePerMinute: 0 });
  await insertWebsites(server, KEY, ['a.example']);
  try {
    const big = unknownKeysFile();
    writeFileSync(join(cwd, 'websites.yaml'), SMALL);
    const small = await runBuiltCli(['validate'], cwd).done;
    writeFileSync(join(cwd, 'websites.yaml'), big);
    const large = await runBuiltCli(['validate'], cwd).done;
    const terms = [];
    const into = small.ms + 1_000;
    for (let round = 0; round < 3; round++) terms.push(await sigtermDuringValidate(cwd, into));
    const watchSmall = await watchReload(cwd, server.url, SMALL.replace('a.example', 'b.example'));
    const watchLarge = await watchReload(cwd, server.url, big);
    console.log(`websites.yaml of ${(big.length / 1e6).toFixed(1)} MB, 190,000 unknown keys, against the built CLI\n`);
    console.log('| run | wall s | peak RSS MB | longest /healthz wait ms | exit |');
    console.log('|---|---|---|---|---|');
    const row = (name: string, run: Run) =>
      console.log(
        `| ${name} | ${(run.ms / 1000).toFixed(2)} | ${run.rssMb.toFixed(0)} | ${run.healthzMs?.toFixed(0) ?? ''} | ${run.code} |`,
      );
    row('validate, one site (baseline)', small);
    row('validate, 190,000 unknown keys', large);
    row('watch, SIGHUP reload of one site (baseline)', watchSmall);
    row('watch, SIGHUP reload of the 4 MB file', watchLarge);
    console.log(
      `\nSIGTERM ${(into / 1000).toFixed(1)} s into validate of the 4 MB file (the one-site run's time + 1 s): exited ${terms.map((t) => `${t.ms.toFixed(0)} ms later (${t.code})`).join(', ')}`,
    );
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
