/**
 * Files parsed once and combined many times: a long-running process that
 * loads many configurations sharing files (watch's targets all share the
 * root files that declare them) parses each shared file once, not once per
 * configuration. A combination is loaded exactly as `loadConfigTexts` loads
 * those texts: the fast way when every file is plain and valid, else the full
 * way with every message placed.
 */

import { type BuildOptions, buildSteps } from './build.js';
import type { Env } from './env.js';
import type { ConfigText, LoadResult } from './index.js';
import { loadConfigTexts, problemFree } from './index.js';
import { quickParse } from './quick-parse.js';
import { schemaAccepts } from './schema.js';
import { runSteps } from './steps.js';
import type { LoadedFile } from './top-level.js';

export interface ParsedConfigFile extends ConfigText {
  /** The file read the fast way, when it is plain and the schema accepts it. */
  quick?: LoadedFile;
}

/** Parses one file's text for later combinations; `omit` leaves top-level keys out of the fast form. */
export function parseConfigFile(text: string, file: string, omit: readonly string[] = []): ParsedConfigFile {
  const quick = quickParse(text, file);
  if (quick === undefined || !schemaAccepts(quick.data)) return { text, file };
  const config = Object.fromEntries(Object.entries(quick.data).filter(([key]) => !omit.includes(key)));
  return { text, file, quick: { source: quick.source, config: config as unknown as LoadedFile['config'] } };
}

/** The configuration these parsed files make, in this order (as loadConfigTexts would load their texts). */
export function loadParsedConfig(files: readonly ParsedConfigFile[], env: Env, options: BuildOptions = {}): LoadResult {
  const quick = files.map((file) => file.quick);
  if (quick.every((file) => file !== undefined)) {
    const built = runSteps(buildSteps(quick, env, options));
    if (built.state && built.problems.length === 0) return problemFree(built.state, files);
  }
  return loadConfigTexts(files, env, options);
}
