/**
 * Which files make up the configuration, and reading them safely: `-f` names
 * files or directories (every *.yaml / *.yml directly inside, sorted); with no
 * `-f`, websites.yaml in the working directory; `-f -` is standard input. Size
 * is bounded while reading, for every kind of file (read-bounded.ts), before
 * the parser ever sees the text.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { ConfigProblem } from '../model/desired-state.js';
import { type BoundedRead, readPathBounded, readStreamBounded } from './read-bounded.js';
import { type ConfigRoot, configRoot, outsideRoot } from './root.js';

export const DEFAULT_CONFIG_FILE = 'websites.yaml';
/** Far above any real configuration (10,000 sites is ~1 MB), far below trouble. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** `-f -`: the configuration comes from standard input, shown as `stdin` in messages. */
export const STDIN_ARG = '-';
export const STDIN_DISPLAY = 'stdin';

export interface ConfigFile {
  /** Absolute path, for reading. */
  path: string;
  /** As shown in messages: relative to the working directory when inside it. */
  display: string;
}

export interface FileListing {
  files: ConfigFile[];
  errors: ConfigProblem[];
}

function fileProblem(display: string, message: string): ConfigProblem {
  return { severity: 'error', code: 'unreadable_file', path: '', message: `${display}: ${message}` };
}

export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/**
 * Expands `-f` arguments into the ordered list of files to load; a file that
 * resolves outside the configuration's root (root.ts) is a problem, not read.
 */
export function listConfigFiles(args: readonly string[], cwd: string): FileListing {
  const files: ConfigFile[] = [];
  const errors: ConfigProblem[] = [];
  const seen = new Set<string>();
  const given = args.length > 0 ? args : [DEFAULT_CONFIG_FILE];
  const root = rootOf(given[0] ?? DEFAULT_CONFIG_FILE, cwd);
  const add = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const display = displayPath(path, cwd);
    const outside = outsideRoot(path, root);
    if (outside === undefined) files.push({ path, display });
    else errors.push(fileProblem(display, outside));
  };
  for (const arg of given) {
    // /dev/stdin too: when stdin is a socket, open(2) on it fails (ENXIO); the stream always works.
    if (arg === STDIN_ARG || arg === '/dev/stdin') {
      if (!seen.has(STDIN_ARG)) files.push({ path: STDIN_ARG, display: arg === STDIN_ARG ? STDIN_DISPLAY : arg });
      seen.add(STDIN_ARG);
      continue;
    }
    const path = resolve(cwd, arg);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) {
      errors.push(fileProblem(arg, 'no such file or directory'));
    } else if (stat.isDirectory()) {
      const outside = outsideRoot(path, root);
      if (outside !== undefined) {
        errors.push(fileProblem(arg, outside)); // not even listed
        continue;
      }
      const names = readdirSync(path)
        .filter((name) => /\.ya?ml$/i.test(name))
        .sort();
      if (names.length === 0) errors.push(fileProblem(arg, 'the directory has no .yaml or .yml files'));
      for (const name of names) add(join(path, name));
    } else {
      add(path);
    }
  }
  return { files, errors };
}

/** The root of a configuration whose first argument is `first`: its directory's (standard input: the working directory's). */
function rootOf(first: string, cwd: string): ConfigRoot | undefined {
  if (first === STDIN_ARG || first === '/dev/stdin') return configRoot(cwd);
  const path = resolve(cwd, first);
  return configRoot(statSync(path, { throwIfNoEntry: false })?.isDirectory() ? path : dirname(path));
}

export type ReadResult = { text: string } | { error: ConfigProblem } | { interrupted: true };

export interface ReadOptions {
  /** Ctrl-C/SIGTERM: the read stops at once. */
  signal?: AbortSignal;
  /** What `-f -` reads; process.stdin by default. */
  stdin?: Readable;
  limit?: number;
}

export async function readConfigFile(file: ConfigFile, options: ReadOptions = {}): Promise<ReadResult> {
  const limit = options.limit ?? MAX_FILE_BYTES;
  const read: BoundedRead =
    file.path === STDIN_ARG
      ? await readStreamBounded(options.stdin ?? process.stdin, limit, options.signal, true)
      : await readPathBounded(file.path, limit, options.signal);
  switch (read.kind) {
    case 'interrupted':
      return { interrupted: true };
    case 'too-large':
      return { error: fileProblem(file.display, `the input is larger than the limit of ${limit} bytes`) };
    case 'failed':
      return { error: fileProblem(file.display, `cannot be read (${read.code})`) };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(read.bytes) };
  } catch {
    return { error: fileProblem(file.display, 'the file is not valid UTF-8 text') };
  }
}
