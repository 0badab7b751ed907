/**
 * Which files make up the configuration, and reading them safely: `-f` names
 * files or directories (every *.yaml / *.yml directly inside, sorted); with no
 * `-f`, websites.yaml in the working directory. Size is bounded before the
 * parser ever sees the text.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { ConfigProblem } from '../model/desired-state.js';

export const DEFAULT_CONFIG_FILE = 'websites.yaml';
/** Far above any real configuration (10,000 sites is ~1 MB), far below trouble. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

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

/** Expands `-f` arguments into the ordered list of files to load. */
export function listConfigFiles(args: readonly string[], cwd: string): FileListing {
  const files: ConfigFile[] = [];
  const errors: ConfigProblem[] = [];
  const seen = new Set<string>();
  const add = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    files.push({ path, display: displayPath(path, cwd) });
  };
  for (const arg of args.length > 0 ? args : [DEFAULT_CONFIG_FILE]) {
    const path = resolve(cwd, arg);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) {
      errors.push(fileProblem(arg, 'no such file or directory'));
    } else if (stat.isDirectory()) {
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

export type ReadResult = { text: string } | { error: ConfigProblem };

export function readConfigFile(file: ConfigFile): ReadResult {
  try {
    const size = statSync(file.path).size;
    if (size > MAX_FILE_BYTES) {
      return { error: fileProblem(file.display, `the file is ${size} bytes; the limit is ${MAX_FILE_BYTES} bytes`) };
    }
    const bytes = readFileSync(file.path);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { text };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof TypeError) return { error: fileProblem(file.display, 'the file is not valid UTF-8 text') };
    return { error: fileProblem(file.display, `cannot be read (${code ?? 'unknown error'})`) };
  }
}
