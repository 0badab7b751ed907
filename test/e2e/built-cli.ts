/**
 * The real `bin/sitesync.js` over a fresh build (tsc and bundle) of src/, for
 * tests that run sitesync as a child process (signals, SIGKILL). Built once
 * per run, by the first test file that asks, into the directory the global
 * setup (test/helpers/cli-build.ts) gives the run; the files that ask while it
 * builds wait for it. The build has a package.json that marks it ESM like the
 * project, and the schemas it reads at run time.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

export interface BuiltCli {
  bin: string;
}

/** The run's build of the CLI: made now when no test file has asked yet, else the one made (or being made). */
export async function builtCli(): Promise<BuiltCli> {
  const dir = inject('cliBuildDir');
  await oncePerRun(dir, 'the build of the CLI', () => build(dir));
  return { bin: join(dir, 'bin', 'sitesync.js') };
}

/**
 * Runs `make` (which fills `dir`) in the first worker that asks during this
 * run; the others wait for its outcome, a failure included.
 */
export async function oncePerRun(dir: string, what: string, make: () => void | Promise<void>): Promise<void> {
  const outcome = join(dir, 'outcome.json');
  mkdirSync(join(dir, '..'), { recursive: true });
  let maker = true;
  try {
    mkdirSync(dir);
  } catch {
    maker = false;
  }
  if (maker) {
    let error: string | null = null;
    try {
      await make();
    } catch (caught) {
      error = String((caught as { stderr?: Buffer }).stderr ?? caught);
    }
    writeFileSync(`${outcome}.new`, JSON.stringify({ error }));
    renameSync(`${outcome}.new`, outcome);
  }
  // Polls a file another worker writes once (no timing involved; the hook's timeout ends a hung build).
  while (!existsSync(outcome)) await sleep(100);
  const { error } = JSON.parse(readFileSync(outcome, 'utf8')) as { error: string | null };
  if (error !== null) throw new Error(`${what} for this run failed: ${error}`);
}

function build(dir: string): void {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, 'schemas'), join(dir, 'schemas')); // read at run time, relative to the package
  const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: ROOT, stdio: 'pipe' });
  try {
    node([
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      join(dir, 'dist'),
    ]);
  } catch {
    // tsc reports type errors of files in progress elsewhere but still emits: the run below is the judge.
  }
  // The CLI itself runs from the bundle, as `npm run build` makes it.
  node([join(ROOT, 'scripts/bundle.mjs'), join(dir, 'dist/bin')]);
  copyFileSync(join(ROOT, 'bin', 'sitesync.js'), join(dir, 'bin', 'sitesync.js'));
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
  /**
   * Filled in once the child runs: sends it a signal, or closes the test's end of
   * its stdout or stderr pipe (the reader goes away, as `| head` does).
   */
  control?: {
    signal?: (signal: NodeJS.Signals) => void;
    close?: (stream: 'stdout' | 'stderr') => void;
    pid?: number;
  };
  /** Written to the child's standard input, which is then closed (ignored when absent). */
  input?: string | Buffer;
  /** A file descriptor the child writes its standard output (or error) to instead of a pipe (e.g. /dev/full). */
  stdoutFd?: number;
  stderrFd?: number;
  /** Sees standard output as it is written (events to act on). */
  onStdout?: (chunk: string) => void;
  /** Sees standard error as it is written (events to act on, e.g. a log line). */
  onStderr?: (chunk: string) => void;
}

/** Runs the CLI to its end (or its death by a signal sent through `control`). */
export function runCli(cli: BuiltCli, args: string[], options: RunOptions): Promise<ChildRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli.bin, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', options.stdoutFd ?? 'pipe', options.stderrFd ?? 'pipe'],
    });
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // the child may stop reading at its limit (EPIPE)
      child.stdin.end(options.input);
    }
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      options.onStdout?.(String(chunk));
    });
    child.stderr?.on('data', (chunk) => {
      err += chunk;
      options.onStderr?.(String(chunk));
    });
    if (options.control) {
      options.control.signal = (signal) => child.kill(signal);
      options.control.close = (stream) => child[stream]?.destroy();
      options.control.pid = child.pid;
    }
    child.on('error', fail);
    child.on('close', (code, signal) => {
      if (options.control) {
        delete options.control.signal;
        delete options.control.close;
        delete options.control.pid;
      }
      done({ code, signal, out, err });
    });
  });
}
