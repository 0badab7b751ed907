// The package as a consumer gets it: `npm pack` of a fresh build, installed
// into a temporary project from the npm cache (--prefer-offline: a consumer
// resolves the newest versions its ranges allow, which the cache may lack),
// running the example that opens docs/library.md against a reference server
// in a child process. The tarball is the run's (test/e2e/packed-cli.ts), so
// the checkout's dist/ is left alone.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packedTarball } from '../e2e/packed-cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'library-package-key-0123456789';

/** The first ```js block of docs/library.md: the example a reader copies. */
function docsExample(): string {
  const doc = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error('docs/library.md opens with no ```js example');
  return block;
}

/** A project that installs the tarball from the local npm cache only, as a consumer's would. */
function consumerProject(tarball: string): string {
  const project = tempDir('pack-consumer');
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  // The server's packages, when optional, are not what a library user needs.
  const omit = manifest.optionalDependencies === undefined ? [] : ['--omit=optional'];
  const install = ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', ...omit, tarball];
  try {
    execFileSync('npm', install, { cwd: project, stdio: 'pipe', env: npmEnv() });
  } catch (error) {
    throw new Error(`npm ${install.join(' ')} failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? ''}`);
  }
  return project;
}

/** The environment without what `npx vitest` sets for its own npm (npm_config_*, npm_package_*). */
function npmEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !/^npm_/i.test(entry[0]),
    ),
  );
}

function runNode(
  file: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [file], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) => done({ code, out, err }));
  });
}

describe('the npm package', () => {
  let server: ServeProcess;
  beforeAll(async () => {
    server = await startServeProcess(['--db', ':memory:', '--throttle', '0'], { SITESYNC_SERVE_KEYS: KEY });
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  test('installs from its tarball and runs the example of docs/library.md against a reference server', async () => {
    const project = consumerProject(await packedTarball());
    writeFileSync(join(project, 'plan.mjs'), docsExample());
    writeFileSync(
      join(project, 'websites.yaml'),
      'version: 1\nwebsites:\n  - domain: one.example\n  - domain: two.example\n',
    );
    const run = await runNode('plan.mjs', project, { SITESYNC_URL: server.url, SITESYNC_API_KEY: KEY });
    expect(run.err).toBe('');
    expect(run.out).toBe(`2 changes for ${server.url}\n`);
    expect(run.code).toBe(0);
  }, 300_000);
});
