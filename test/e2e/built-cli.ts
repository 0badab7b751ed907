/**
 * The real `bin/sitesync.js` over a fresh build (tsc and bundle) of src/, for tests that run
 * sitesync as a child process (signals, SIGKILL). Built once per test file
 * into node_modules/.cache (so dist/ is left alone and packages resolve), with
 * a package.json that marks it ESM like the project.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface BuiltCli {
  bin: string;
  remove(): void;
}

export function buildCli(name: string): BuiltCli {
  const dir = join(ROOT, 'node_modules', '.cache', `sitesync-${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, 'schemas'), join(dir, 'schemas')); // read at run time, relative to the package
  try {
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(ROOT, 'tsconfig.build.json'),
        '--outDir',
        join(dir, 'dist'),
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
  } catch {
    // tsc reports type errors of files in progress elsewhere but still emits: the run below is the judge.
  }
  // The CLI itself runs from the bundle, as `npm run build` makes it.
  execFileSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs'), join(dir, 'dist/bin')], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  copyFileSync(join(ROOT, 'bin', 'sitesync.js'), join(dir, 'bin', 'sitesync.js'));
  return { bin: join(dir, 'bin', 'sitesync.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

export interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  /** Filled in once the child runs: sends it a signal. */
  control?: { signal?: (signal: NodeJS.Signals) => void; pid?: number };
  /** Written to the child's standard input, which is then closed (ignored when absent). */
  input?: string | Buffer;
  /** Sees standard error as it is written (events to act on, e.g. a log line). */
  onStderr?: (chunk: string) => void;
}

/** Runs the CLI to its end (or its death by a signal sent through `control`). */
export function runCli(cli: BuiltCli, args: string[], options: RunOptions): Promise<ChildRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli.bin, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // the child may stop reading at its limit (EPIPE)
      child.stdin.end(options.input);
    }
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk) => (out += chunk));
    child.stderr?.on('data', (chunk) => {
      err += chunk;
      options.onStderr?.(String(chunk));
    });
    if (options.control) {
      options.control.signal = (signal) => child.kill(signal);
      options.control.pid = child.pid;
    }
    child.on('error', fail);
    child.on('close', (code, signal) => {
      if (options.control) {
        delete options.control.signal;
        delete options.control.pid;
      }
      done({ code, signal, out, err });
    });
  });
}
