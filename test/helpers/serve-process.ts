/**
 * `sitesync serve` as a child process (from the sources, through tsx: no build
 * needed), for tests where a replica must die for real (kill -9). The URL is
 * read from the "listening on" line; a start that fails rejects with stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
/** The CLI from the sources: `[...SITESYNC_COMMAND, 'serve', …]`. */
export const SITESYNC_COMMAND = [process.execPath, '--import', 'tsx', resolve(ROOT, 'src/cli/bin.ts')];

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the signal or exit code once the process has gone. */
  exited: Promise<NodeJS.Signals | number | null>;
  stderr(): string;
}

/** `serve --port 0 ARGS`, from the sources or by `command` (an installed bin: `[node, bin]`). */
export function startServeProcess(
  args: string[],
  env: Record<string, string>,
  sitesync: readonly string[] = SITESYNC_COMMAND,
): Promise<ServeProcess> {
  const [command, ...rest] = sitesync;
  const child = spawn(command!, [...rest, 'serve', '--port', '0', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    child.on('close', (code, signal) => done(signal ?? code)),
  );
  return new Promise((done, fail) => {
    child.stderr!.on('data', (chunk) => {
      err += chunk;
      const url = /listening on (\S+?),/.exec(err)?.[1];
      if (url) done({ url, child, exited, stderr: () => err });
    });
    exited.then(() => fail(new Error(`sitesync serve exited before listening: ${err}`)));
  });
}
