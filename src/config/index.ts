/**
 * websites.yaml → DesiredState. The public surface of config/: load one or
 * more files, report every problem at once with file:line:column, and format
 * problems for people. Errors are values here; commands decide what to do.
 */
import type { ConfigProblem, DesiredState } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { countOf } from '../model/text.js';
import { type BuildOptions, buildSteps } from './build.js';
import type { Env } from './env.js';
import { listConfigFiles, type ReadOptions, readConfigFile } from './files.js';
import { quickParse } from './quick-parse.js';
import { checkSchema, schemaAccepts } from './schema.js';
import type { WebsitesConfig } from './schema-types.js';
import { runSteps, runStepsYielding } from './steps.js';
import type { LoadedFile } from './top-level.js';
import { parseConfigText } from './yaml-file.js';

export { type ExportOptions, type ExportResult, exportConfig, exportConfigWithWarnings } from './export.js';
export { DEFAULT_CONFIG_FILE } from './files.js';
export { configRoot, outsideRoot } from './root.js';
export { schemaText } from './schema.js';

/**
 * `advice`: also report advice that `plan` shows in its own output instead
 * (prune with no `manage` scope is a plan note): `validate` asks for it.
 */
export interface LoadOptions extends Omit<ReadOptions, 'limit'>, BuildOptions {
  /** Files or directories (every *.yaml / *.yml inside, sorted); empty means websites.yaml in cwd. */
  files: string[];
  cwd: string;
  env: Env;
  /** Called with the files' texts once all are read, before they are parsed (an early listing scans `api.url`). */
  onRead?: (texts: readonly string[]) => void;
}

/**
 * At most this many errors, and as many warnings, are listed: a file of
 * 30,000 unknown keys would otherwise print 30,000 lines. The rest are counted
 * (`omitted`) and shown as "and N more errors".
 */
export const MAX_LISTED_PROBLEMS = 100;

export interface LoadResult {
  /** Present when there are no errors. */
  state?: DesiredState;
  /** The first MAX_LISTED_PROBLEMS errors, in file, line and column order. */
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
  /** Problems found beyond the ones listed. */
  omitted: { errors: number; warnings: number };
  /** The files that were read, valid or not, as shown in messages. */
  files: string[];
}

/** Rejects with SitesyncError('interrupted') when `signal` aborts while reading. */
export async function loadConfig(options: LoadOptions): Promise<LoadResult> {
  const listing = listConfigFiles(options.files, options.cwd);
  const problems: ConfigProblem[] = [...listing.errors];
  const sources: ConfigText[] = [];
  for (const file of listing.files) {
    const read = await readConfigFile(file, options);
    if ('interrupted' in read) throw new SitesyncError('interrupted', 'interrupted while reading the configuration');
    if ('error' in read) problems.push(read.error);
    else sources.push({ text: read.text, file: file.display });
  }
  if (problems.length === 0) {
    options.onRead?.(sources.map((source) => source.text));
    const quick = await runStepsYielding(quickSteps(sources, options), options.signal);
    if (quick) return quick;
  }
  const order = listing.files.map((file) => file.display);
  return runStepsYielding(loadSteps(sources, problems, order, options), options.signal);
}

/** One configuration given as text (no file is read): `file` is the name its messages show. */
export interface ConfigText {
  text: string;
  file: string;
}

/**
 * Loads a configuration from text, exactly as `loadConfig` loads a file of
 * that name: the same parsing, checks, messages and result.
 */
export function loadConfigText(text: string, file: string, env: Env, options: BuildOptions = {}): LoadResult {
  return loadConfigTexts([{ text, file }], env, options);
}

/**
 * Several files given as text, loaded as `loadConfig` loads those files in
 * this order (the configuration as it was at a git revision, read with `git show`).
 */
export function loadConfigTexts(sources: readonly ConfigText[], env: Env, options: BuildOptions = {}): LoadResult {
  const order = sources.map((source) => source.file);
  const all = { env, ...options };
  return runSteps(quickSteps(sources, all)) ?? runSteps(loadSteps(sources, [], order, all));
}

/**
 * A configuration without a single problem, read the fast way (quick-parse.ts);
 * undefined at the first sign of anything else, and loadSteps says what.
 * Pauses after each file's parse and schema check, and in the build.
 */
function* quickSteps(
  sources: readonly ConfigText[],
  options: BuildOptions & { env: Env },
): Generator<void, LoadResult | undefined> {
  const loaded: LoadedFile[] = [];
  for (const source of sources) {
    const quick = quickParse(source.text, source.file);
    yield;
    if (!quick || !schemaAccepts(quick.data)) return undefined;
    loaded.push({ source: quick.source, config: quick.data });
    yield;
  }
  const built = yield* buildSteps(loaded, options.env, options);
  if (!built.state || built.problems.length > 0) return undefined;
  return {
    state: built.state,
    errors: [],
    warnings: [],
    omitted: { errors: 0, warnings: 0 },
    files: sources.map((source) => source.file),
  };
}

/** Parses, checks and builds, with a pause (`yield`) after each step that may be long. */
function* loadSteps(
  sources: readonly ConfigText[],
  problems: ConfigProblem[],
  order: readonly string[],
  options: BuildOptions & { env: Env },
): Generator<void, LoadResult> {
  const loaded: LoadedFile[] = [];
  const files: string[] = [];
  for (const source of sources) {
    files.push(source.file);
    const parsed = parseConfigText(source.text, source.file);
    append(problems, parsed.problems);
    yield;
    if (parsed.data === undefined) continue;
    append(problems, checkSchema(parsed, parsed.data));
    yield;
    // Possibly invalid data: the checks that follow guard every value they read.
    loaded.push({ source: parsed, config: parsed.data as WebsitesConfig });
  }
  const built = yield* buildSteps(loaded, options.env, options);
  append(problems, built.problems);
  yield;

  const ordered = sortProblems(problems, order);
  const allErrors = ordered.filter((problem) => problem.severity === 'error');
  const allWarnings = ordered.filter((problem) => problem.severity === 'warning');
  const errors = allErrors.slice(0, MAX_LISTED_PROBLEMS);
  const warnings = allWarnings.slice(0, MAX_LISTED_PROBLEMS);
  const omitted = { errors: allErrors.length - errors.length, warnings: allWarnings.length - warnings.length };
  if (errors.length > 0 || !built.state) return { errors, warnings, omitted, files };
  return { state: { ...built.state, warnings }, errors, warnings, omitted, files };
}

/** `target.push(...items)` without one argument per item: 200,000 problems overflowed the stack. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** `and 29,900 more errors (only the first 100 are listed)`: the line after a capped list. */
export function omittedLine(count: number, noun: 'error' | 'warning'): string {
  return `and ${count.toLocaleString('en-US')} more ${noun}${count === 1 ? '' : 's'} (only the first ${MAX_LISTED_PROBLEMS} are listed)`;
}

/** File-level problems first, then by file (in load order), line and column. */
function sortProblems(problems: readonly ConfigProblem[], files: readonly string[]): ConfigProblem[] {
  const rank = (problem: ConfigProblem): number[] =>
    problem.source ? [files.indexOf(problem.source.file), problem.source.line, problem.source.column] : [-1, 0, 0];
  return [...problems].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    for (let i = 0; i < ra.length; i++) {
      if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    }
    return 0;
  });
}

/**
 * The one-line error of a command that cannot go on with an invalid
 * configuration. A missing password variable gets a way forward: a plan must
 * know what it would send, so a drift-check job sets the variables too.
 */
export function invalidConfigMessage(errors: readonly ConfigProblem[], omitted = 0): string {
  const summary = `the configuration is invalid (${countOf(errors.length + omitted, 'problem')})`;
  if (!errors.some((problem) => problem.code === 'missing_variable')) return summary;
  return `${summary}; apply needs every password variable (validate and plan do not): set them from the CI secret store on the apply step (docs/config.md)`;
}

/** `websites.yaml:14:14: websites[3].privacy must be one of public, private, password` */
export function formatProblem(problem: ConfigProblem): string {
  const where = problem.source ? `${problem.source.file}:${problem.source.line}:${problem.source.column}: ` : '';
  const severity = problem.severity === 'warning' ? 'warning: ' : '';
  const path = problem.path ? `${problem.path} ` : '';
  return `${where}${severity}${path}${problem.message}`;
}
