/**
 * sitesync installed as a consumer installs it (issue 38, item 2): the run's
 * packed tarball (packed-cli.ts) into an empty project, every dependency
 * resolved from the npm registry (never this checkout's lockfile, whose pins
 * and overrides do not reach consumers), with engine-strict, for the Node
 * that runs the tests (npm resolves engines for its own Node only: npm 11
 * ignores `--node-version`), Node 20 here as for the README's users. Two
 * installs per run, made by the first file that asks and shared by the others:
 *
 * - `cli`: the README's CLI-only install for `watch --metrics-addr`:
 *   `--omit=optional` plus prom-client (README, "Watch continuously");
 * - `full`: without `--omit=optional`, the server's packages included.
 *
 * Install scripts are not run (`--ignore-scripts`): better-sqlite3's would
 * download a prebuilt addon from GitHub (unreachable here) or compile one for a
 * minute; the addon of the same pinned version is copied from this checkout's
 * build instead, which is what the download would bring. The projects live in
 * the run's temporary directory, outside this checkout (a package missing
 * there must not be found by walking up into its node_modules), and go with it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { oncePerRun } from './built-cli.js';
import { packedTarball } from './packed-cli.js';

const ROOT = join(import.meta.dirname, '../..');
const ADDON = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';

export type InstallKind = 'cli' | 'full';

export interface ConsumerProject {
  /** The project directory (its node_modules holds sitesync). */
  project: string;
  /** The installed bin, as `npx --no-install sitesync` runs it. */
  bin: string;
}

/** The run's consumer install of that kind (made now, or waited for). */
export async function consumerInstall(kind: InstallKind): Promise<ConsumerProject> {
  const tarball = await packedTarball();
  // Not named sitesync-*: shared by the run's files, removed with the run's temporary directory.
  const dir = join(tmpdir(), `consumer-${kind}`);
  const project = join(dir, 'project');
  await oncePerRun(dir, `npm install of the tarball (${kind})`, () => install(kind, tarball, project));
  return { project, bin: join(project, 'node_modules/sitesync/bin/sitesync.js') };
}

async function install(kind: InstallKind, tarball: string, project: string): Promise<void> {
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  // What the README tells a CLI-only install to add for watch --metrics-addr, as written there.
  const metrics = /npm install --save-dev (prom-client@[\w.^~-]+)/.exec(
    readFileSync(join(ROOT, 'README.md'), 'utf8'),
  )?.[1];
  if (metrics === undefined) throw new Error('README.md says no `npm install --save-dev prom-client@…`');
  const args = [
    'install',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    '--engine-strict',
    ...(kind === 'cli' ? ['--omit=optional', tarball, metrics] : [tarball]),
  ];
  // Asynchronous: the two installs of a run may go on side by side (two test files, or one asking for both).
  await promisify(execFile)('npm', args, { cwd: project, env: npmEnv(), maxBuffer: 16 * 1024 * 1024 });
  if (kind === 'full') copyAddon(project);
}

/** better-sqlite3's addon from this checkout's build, for the same pinned version only. */
function copyAddon(project: string): void {
  const version = (root: string) =>
    (JSON.parse(readFileSync(join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string })
      .version;
  if (version(project) !== version(ROOT))
    throw new Error(`better-sqlite3 ${version(project)} was resolved, this checkout built ${version(ROOT)}`);
  mkdirSync(join(project, ADDON, '..'), { recursive: true });
  copyFileSync(join(ROOT, ADDON), join(project, ADDON));
}

/** The environment without what `npx vitest` sets for its own npm (npm_config_*, npm_package_*). */
export function npmEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !/^npm_/i.test(entry[0]),
    ),
  );
}
