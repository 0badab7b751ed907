// sitesync as a consumer installs it from the registry (issue 38, items 2
// and 3; consumer-install.ts): without --omit=optional the server runs (a
// consumer resolved cookie@2 through light-my-request, whose Node 22 engines
// made npm drop fastify's whole tree silently); the README's CLI-only install
// for watch runs `watch --metrics-addr`; both run the example of
// docs/library.md. The full install's own `serve` is the reference server of
// the file.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { tempDirWith } from '../helpers/temp.js';
import { type ChildRun, runCli } from './built-cli.js';
import { type ConsumerProject, consumerInstall, type InstallKind } from './consumer-install.js';

const ROOT = join(import.meta.dirname, '../..');
const KEY = 'consumer-install-key-0123456789';
const WEBSITES = 'version: 1\nwebsites:\n  - domain: one.example\n  - domain: two.example\n';

const installs = {} as Record<InstallKind, ConsumerProject>;
let server: ServeProcess;
beforeAll(async () => {
  [installs.cli, installs.full] = await Promise.all([consumerInstall('cli'), consumerInstall('full')]);
  server = await startServeProcess(['--db', ':memory:', '--throttle', '0'], { SITESYNC_SERVE_KEYS: KEY }, [
    process.execPath,
    installs.full.bin,
  ]);
}, 600_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
});

const serviceEnv = () => ({ SITESYNC_URL: server.url, SITESYNC_API_KEY: KEY });

/** The first ```js block of docs/library.md: the example a reader copies. */
function docsExample(): string {
  const block = /```js\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'docs/library.md'), 'utf8'))?.[1];
  if (block === undefined) throw new Error('docs/library.md opens with no ```js example');
  return block;
}

/** `watch --metrics-addr 127.0.0.1:0` until its first check, then GET /metrics, then SIGTERM. */
async function watchMetrics(install: ConsumerProject): Promise<ChildRun & { metrics: string }> {
  const dir = tempDirWith('consumer-watch', { 'websites.yaml': WEBSITES });
  const control: { signal?: (signal: NodeJS.Signals) => void } = {};
  let err = '';
  let metrics: Promise<string> | undefined;
  const run = await runCli(install, ['watch', '--metrics-addr', '127.0.0.1:0', '--log-format', 'json'], {
    cwd: dir,
    env: serviceEnv(),
    control,
    onStderr: (chunk) => {
      err += chunk;
      const url = /"msg":"serving the status page, \/metrics[^\n]*"url":"([^"]+)"/.exec(err)?.[1];
      if (metrics !== undefined || url === undefined || !err.includes('"msg":"checked"')) return;
      metrics = fetch(`${url}/metrics`)
        .then((answer) => answer.text())
        .finally(() => control.signal?.('SIGTERM'));
    },
  });
  return { ...run, metrics: (await metrics) ?? '' };
}

describe.each(['cli', 'full'] as const)('the %s install from the registry', (kind) => {
  test('runs the example of docs/library.md', async () => {
    const { project } = installs[kind];
    writeFileSync(join(project, 'plan.mjs'), docsExample());
    writeFileSync(join(project, 'websites.yaml'), WEBSITES);
    const run = execFileSync(process.execPath, ['plan.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', ...serviceEnv() },
      encoding: 'utf8',
    });
    expect(run).toBe(`2 changes for ${server.url}\n`);
  });

  test('watch --metrics-addr serves the metrics of its checks', async () => {
    const watched = await watchMetrics(installs[kind]);
    expect(watched.code, watched.err).toBe(0);
    expect(watched.metrics).toMatch(/^sitesync_checks_total\{target="[^"]+",result="success"\} 1$/m);
  });
});

describe('serve', () => {
  test('the full install serves the reference API (the file runs on it)', async () => {
    const answer = await fetch(`${server.url}/api/v1/websites`, {
      headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' },
    });
    expect(answer.status).toBe(200);
  });

  test('the CLI-only install says in one line how to add the server packages', async () => {
    const refused = await runCli(installs.cli, ['serve', '--port', '0'], { cwd: installs.cli.project, env: {} });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^error: sitesync serve needs the server packages .*\n$/);
  });
});
