#!/usr/bin/env node
// `npm run demo`: the whole sitesync loop against the embedded reference server.
// Starts `sitesync serve` on a free port with a temporary SQLite file and a generated
// key, then runs the real CLI: validate, plan, apply, plan again (nothing to do),
// drift made through the API (as if someone clicked in the web UI), a drift check
// that catches it (exit 2), and export. Stops the server at the end.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'sitesync.js');
const config = join(root, 'examples', 'realistic.yaml');
const workdir = mkdtempSync(join(tmpdir(), 'sitesync-demo-'));
const key = `demo-${randomBytes(18).toString('hex')}`;

const bold = (text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${text}\x1b[22m` : text);

function step(title) {
  console.log(`\n${bold(`━━ ${title}`)}`);
}

async function startServer() {
  const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--db', join(workdir, 'demo.db')], {
    env: { ...process.env, SITESYNC_SERVE_KEYS: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk;
      const match = seen.match(/https?:\/\/[\d.]+:\d+/);
      if (match) resolve(match[0]);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('exit', (code) => reject(new Error(`sitesync serve exited with ${code}:\n${seen}`)));
  });
  server.stdout.resume();
  server.stderr.resume();
  return { url, stop: () => new Promise((resolve) => server.once('exit', resolve).kill('SIGTERM')) };
}

function sitesync(env, ...args) {
  console.log(`\n$ sitesync ${args.join(' ').replaceAll(root, '')}`);
  const result = spawnSync(process.execPath, [bin, ...args], { env, stdio: 'inherit' });
  console.log(`(exit code ${result.status})`);
  return result.status;
}

async function api(url, method, path, form) {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
    body: form ? new URLSearchParams(form) : undefined,
  });
  return response.json();
}

function expect(condition, message) {
  if (!condition) {
    console.error(`\ndemo failed: ${message}`);
    process.exitCode = 1;
  }
}

step('Start the reference server (sitesync serve) with a temporary SQLite database');
const server = await startServer();
console.log(`listening on ${server.url}`);
const env = {
  ...process.env,
  SITESYNC_URL: server.url,
  SITESYNC_API_KEY: key,
  SITESYNC_ACME_PARTNERS_STATS_PASSWORD: randomBytes(12).toString('hex'),
  SITESYNC_ORBIT_INVESTORS_STATS_PASSWORD: randomBytes(12).toString('hex'),
  NO_COLOR: process.env.NO_COLOR ?? '',
};

try {
  step('Validate the desired state (offline)');
  expect(sitesync(env, 'validate', '-f', config) === 0, 'validate failed');

  step('Plan: everything is new');
  expect(sitesync(env, 'plan', '-f', config) === 0, 'plan failed');

  step('Apply it');
  expect(sitesync(env, 'apply', '-f', config, '--auto-approve') === 0, 'apply failed');

  step('Plan again: nothing to do (idempotent)');
  expect(sitesync(env, 'plan', '-f', config, '--detailed-exitcode') === 0, 'second plan was not empty');

  step('Someone changes a setting in the web UI (simulated through the API)');
  const listing = await api(server.url, 'GET', '/websites?per_page=100&sort_by=domain&sort=asc');
  const site = listing.data[0];
  await api(server.url, 'PATCH', `/websites/${site.id}`, { email: site.email ? '0' : '1', exclude_ips: '192.0.2.1' });
  console.log(`changed email and exclude_ips of ${site.domain} behind sitesync's back`);

  step('Drift check: plan --detailed-exitcode exits 2 and shows the drift');
  expect(sitesync(env, 'plan', '-f', config, '--detailed-exitcode') === 2, 'drift was not detected');

  step('Export what is live as a canonical websites.yaml');
  expect(sitesync(env, 'export') === 0, 'export failed');
} finally {
  step('Stop the server');
  await server.stop();
  rmSync(workdir, { recursive: true, force: true });
  console.log(process.exitCode ? 'demo FAILED' : 'demo finished: every step behaved as expected');
}
