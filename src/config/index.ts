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
import type { SourceFile } from './positions.js';
import { type QuickFile, quickParseSteps } from './quick-parse.js';
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
  const quick = new Map<ConfigText, QuickFile | undefined>();
  if (problems.length === 0) {
    options.onRead?.(sources.map((source) => source.text));
    const loaded = await runStepsYielding(quickSteps(sources, options, quick), options.signal);
    if (loaded) return loaded;
  }
  const order = listing.files.map((file) => file.display);
  return runStepsYielding(loadSteps(sources, problems, order, options, quick), options.signal);
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
  const quick = new Map<ConfigText, QuickFile | undefined>();
  return runSteps(quickSteps(sources, all, quick)) ?? runSteps(loadSteps(sources, [], order, all, quick));
}

/** Each file read the fast way (quick-parse.ts), or undefined where that way declined it; absent: not tried yet. */
type QuickFiles = Map<ConfigText, QuickFile | undefined>;

/**
 * A configuration without a single problem, read the fast way (quick-parse.ts);
 * undefined at the first sign of anything else, and loadSteps says what (from
 * the files read here, kept in `read`). Pauses while each file is read, after
 * its schema check, and in the build.
 */
function* quickSteps(
  sources: readonly ConfigText[],
  options: BuildOptions & { env: Env },
  read: QuickFiles,
): Generator<void, LoadResult | undefined> {
  const loaded: LoadedFile[] = [];
  for (const source of sources) {
    const quick = yield* quickParseSteps(source.text, source.file);
    read.set(source, quick);
    yield;
    if (!quick || !schemaAccepts(quick.data)) return undefined;
    loaded.push({ source: quick.source, config: quick.data });
    yield;
  }
  const built = yield* buildSteps(loaded, options.env, options);
  if (!built.state || built.problems.length > 0) return undefined;
  return problemFree(built.state, sources);
}

/** The result of files loaded without a single problem. */
export function problemFree(state: DesiredState, sources: readonly ConfigText[]): LoadResult {
  const files = sources.map((source) => source.file);
  return { state, errors: [], warnings: [], omitted: { errors: 0, warnings: 0 }, files };
}

/**
 * Parses, checks and builds, with a pause (`yield`) after each step that may
 * be long. A file the fast way read (`read`, or read here) is not parsed
 * again: its data is the full parse's, and it has no YAML problem (that way
 * declines any); the full parse is made only where a position asks for it.
 */
function* loadSteps(
  sources: readonly ConfigText[],
  problems: ConfigProblem[],
  order: readonly string[],
  options: BuildOptions & { env: Env },
  read: QuickFiles,
): Generator<void, LoadResult> {
  const loaded: LoadedFile[] = [];
  const files: string[] = [];
  let unlisted = 0;
  for (const source of sources) {
    files.push(source.file);
    const file = yield* fileOf(source, read);
    append(problems, file.problems);
    yield;
    if (file.data === undefined) continue;
    const checked = checkSchema(file.source, file.data, MAX_LISTED_PROBLEMS);
    append(problems, checked.problems);
    unlisted += checked.unlisted;
    yield;
    // Possibly invalid data: the checks that follow guard every value they read.
    loaded.push({ source: file.source, config: file.data as WebsitesConfig });
  }
  const built = yield* buildSteps(loaded, options.env, options);
  append(problems, built.problems);
  yield;

  const ordered = sortProblems(problems, order);
  const allErrors = ordered.filter((problem) => problem.severity === 'error');
  const allWarnings = ordered.filter((problem) => problem.severity === 'warning');
  const errors = allErrors.slice(0, MAX_LISTED_PROBLEMS);
  const warnings = allWarnings.slice(0, MAX_LISTED_PROBLEMS);
  const omitted = {
    errors: allErrors.length - errors.length + unlisted,
    warnings: allWarnings.length - warnings.length,
  };
  if (errors.length > 0 || !built.state) return { errors, warnings, omitted, files };
  return { state: { ...built.state, warnings }, errors, warnings, omitted, files };
}

/** One file's data and positions: the fast way's where it read the file, else the full parse's, with its YAML problems. */
function* fileOf(
  source: ConfigText,
  read: QuickFiles,
): Generator<void, { source: SourceFile; data: unknown; problems: readonly ConfigProblem[] }> {
  const quick = read.has(source) ? read.get(source) : yield* quickParseSteps(source.text, source.file);
  if (quick) return { source: quick.source, data: quick.data, problems: [] };
  const parsed = parseConfigText(source.text, source.file);
  return { source: parsed, data: parsed.data, problems: parsed.problems };
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
