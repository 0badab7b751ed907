/**
 * Running a command on several targets (docs/config.md, Targets): which
 * targets `--target` chooses, the options each target's run gets (its files,
 * URL, key source, rate limit), a bounded fan-out in which one target's
 * failure never stops another, and the per-target Io that keeps each
 * target's output apart. Each target runs the unchanged single-target
 * pipeline; only the report around it is new.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { exitCodeFor } from '../cli/exit-code.js';
import type { Io, OutputStream } from '../cli/io.js';
import { wholeNumberOption } from '../cli/option-values.js';
import type { ConnectionOptions, SharedOptions } from '../cli/shared-options.js';
import { type StatusBoard, statusBoard } from '../cli/status-board.js';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../config/index.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { isSitesyncError, SitesyncError } from '../model/errors.js';
import { matchesGlob } from '../model/glob.js';
import { type ErrorJson, errorJsonOf } from '../render/error-document.js';
import { refuseUnmatchedSyncSites } from './prepare.js';

/** The targets `--target` names (globs allowed), in declaration order; all when none is given. */
export function selectTargets(
  declared: readonly TargetDeclaration[],
  patterns: readonly string[],
): TargetDeclaration[] {
  if (patterns.length === 0) return [...declared];
  const unmatched = patterns.filter((glob) => !declared.some((target) => matchesGlob(target.name, glob)));
  if (unmatched.length > 0) {
    const names = declared.map((target) => target.name).join(', ');
    throw new SitesyncError('usage', `--target ${unmatched.join(', ')} matches no target (declared: ${names})`);
  }
  return declared.filter((target) => patterns.some((glob) => matchesGlob(target.name, glob)));
}

/** `--target` given but the configuration declares no targets: a typo or the wrong directory. */
export function refuseTargetsWithout(shared: Pick<SharedOptions, 'targets'>): void {
  if (shared.targets.length === 0) return;
  throw new SitesyncError(
    'usage',
    `--target ${shared.targets.join(', ')}: the configuration declares no targets (see docs/config.md, Targets)`,
  );
}

/** The targets declare their URL and key: a command-line one would silently apply to all of them. */
export function refuseConnectionFlags(shared: Pick<SharedOptions, 'url' | 'apiKeyFile'>): void {
  const given = shared.url !== undefined ? '--url' : shared.apiKeyFile !== undefined ? '--api-key-file' : undefined;
  if (given === undefined) return;
  throw new SitesyncError(
    'usage',
    `${given} cannot be used when the configuration declares targets: each target has its own url and key_env or key_file`,
  );
}

/**
 * One target's options: the command's files (or websites.yaml) plus the
 * target's, relative to the file that declares them; the target's URL and key
 * source; --rate-limit over the target's rate_limit.
 */
export function targetOptions<T extends SharedOptions>(shared: T, target: TargetDeclaration, cwd: string): T {
  const files = targetFiles(shared.files, target, cwd);
  return { ...targetConnection(shared, target, cwd), files, rootFiles: [...shared.files], target };
}

/** The target's URL and key source, and --rate-limit over its rate_limit. */
export function targetConnection<T extends ConnectionOptions>(options: T, target: TargetDeclaration, cwd: string): T {
  const connection: T = { ...options, url: target.url, apiKeyFile: undefined, apiKeyEnv: undefined };
  if ('file' in target.key) connection.apiKeyFile = besideDeclaration(target, cwd)(target.key.file);
  else connection.apiKeyEnv = target.key.env;
  if (options.rateLimit === undefined && target.rateLimit !== undefined) connection.rateLimit = target.rateLimit;
  return connection;
}

/** The files a target is loaded from: the command's (or websites.yaml), then the target's own. */
export function targetFiles(files: readonly string[], target: TargetDeclaration, cwd: string): string[] {
  const own = besideDeclaration(target, cwd);
  return [...(files.length > 0 ? files : [DEFAULT_CONFIG_FILE]), ...target.files.map(own)];
}

/** A path written in `targets:` is relative to the declaring file's directory. */
function besideDeclaration(target: TargetDeclaration, cwd: string): (path: string) => string {
  const base = resolve(cwd, dirname(target.declaredIn));
  return (path) => (isAbsolute(path) ? path : resolve(base, path));
}

/**
 * With --only or --sync-write-only sites over targets: the domains every
 * chosen target configures (read offline), for each target's typo checks
 * (`spanDomains`), and a --sync-write-only site that none of them lists
 * refused once, before any target starts. When a target's configuration is
 * invalid, that target's run reports it and nothing is refused here.
 */
export async function spanDomains(
  shared: SharedOptions,
  chosen: readonly TargetDeclaration[],
  syncSites: readonly string[],
  io: Io,
): Promise<string[] | undefined> {
  if (shared.only.length === 0 && syncSites.length === 0) return undefined;
  const domains: string[] = [];
  let complete = true;
  for (const target of chosen) {
    const files = targetFiles(shared.files, target, io.cwd);
    const loaded = await loadConfig({ files, cwd: io.cwd, env: io.env, secrets: 'check', signal: io.signal });
    if (loaded.state === undefined) complete = false;
    for (const site of loaded.state?.websites ?? []) domains.push(site.domain);
  }
  const names = chosen.map((target) => target.name).join(', ');
  if (complete) refuseUnmatchedSyncSites(syncSites, domains, ` of any chosen target (${names})`);
  return domains;
}

export function targetParallelism(text: string | undefined): number {
  return wholeNumberOption('--target-parallelism', text ?? '4', { min: 1 });
}

/** What one target's run ended with: its exit code, and the error that ended it, if one did. */
export interface TargetOutcome<T> {
  target: TargetDeclaration;
  code: number;
  value?: T;
  /** The error's one-line message (never a secret: messages are redacted by the Io). */
  error?: string;
  /** The same error as the JSON error documents carry it: `{code, message}`. */
  errorJson?: ErrorJson;
  /** Everything the target's run wrote to stdout. */
  stdout: string;
}

/**
 * Runs `work` for every target, at most `bound` at a time, each with its own
 * Io; an error ends only that target's run. Outcomes come back in target order.
 */
export async function fanOut<T>(
  targets: readonly TargetDeclaration[],
  bound: number,
  io: Io,
  work: (target: TargetDeclaration, io: TargetIo) => Promise<{ code: number; value?: T }>,
): Promise<TargetOutcome<T>[]> {
  const board = statusBoard(
    io.stderr,
    targets.map((target) => target.name),
  );
  const outcomes: TargetOutcome<T>[] = new Array(targets.length);
  // One day for every target: the same day decides which ignore_changes rules have expired.
  const started = io.now?.() ?? new Date();
  const now = () => started;
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < targets.length; index = next++) {
      const target = targets[index] as TargetDeclaration;
      const targetIo = targetIoFor(io, target.name, board, now);
      board.update(target.name, 'started');
      const outcome = await runOne(target, targetIo, work);
      outcomes[index] = outcome;
      targetIo.flush();
      board.update(target.name, outcome.error !== undefined ? `failed: ${outcome.error}` : statusWord(outcome.code));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(bound, targets.length) }, worker));
  } finally {
    board.end();
  }
  return outcomes;
}

async function runOne<T>(
  target: TargetDeclaration,
  io: TargetIo,
  work: (target: TargetDeclaration, io: TargetIo) => Promise<{ code: number; value?: T }>,
): Promise<TargetOutcome<T>> {
  try {
    const { code, value } = await work(target, io);
    return { target, code, ...(value !== undefined && { value }), stdout: io.out() };
  } catch (error) {
    const aborted = io.signal?.aborted === true && error === io.signal.reason;
    const message = isSitesyncError(error) ? error.message : error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: ${message}\n`);
    const code = exitCodeFor({ kind: 'failed', error, aborted });
    return { target, code, error: message, errorJson: errorJsonOf(error, aborted), stdout: io.out() };
  }
}

function statusWord(code: number): string {
  return code === 0 ? 'done' : `done (exit ${code})`;
}

/** A target's Io: stdout kept for the report, stderr lines named after the target. */
export interface TargetIo extends Io {
  out(): string;
  /** Writes a last unfinished stderr line. */
  flush(): void;
  /** Lines for the person now, above the status board (a question's context). */
  print(lines: readonly string[]): void;
}

/**
 * stderr: off a terminal, every line is written at once as `[name] line`; on
 * a terminal, the target's latest line is its line on the status board and
 * the lines are written, grouped under the target's name, when it ends.
 * No prompt of its own: an interactive apply asks once for all (./ask-once.ts).
 */
function targetIoFor(io: Io, name: string, board: StatusBoard, now: () => Date): TargetIo {
  let captured = '';
  let pending = '';
  const kept: string[] = [];
  const tty = io.stderr.isTTY;
  const line = (text: string) => {
    const shown = text
      .split('\r')
      .map((part) => part.replaceAll('\x1b[K', ''))
      .findLast((part) => part !== '');
    if (shown !== undefined) board.update(name, shown);
    if (!tty) io.stderr.write(`[${name}] ${text}\n`);
    else if (text.trim() !== '' && !text.includes('\r')) kept.push(text);
  };
  const stderr: OutputStream = {
    isTTY: tty,
    write: (text) => {
      const parts = (pending + text).split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) line(part);
      if (tty && pending.includes('\r')) {
        line(pending);
        pending = '';
      }
    },
  };
  const targetIo: TargetIo = {
    stdout: {
      isTTY: io.stdout.isTTY,
      write: (text) => {
        captured += text;
      },
    },
    stderr,
    env: io.env,
    cwd: io.cwd,
    out: () => captured,
    print: (lines) => board.print(lines),
    flush: () => {
      if (pending !== '') line(pending);
      pending = '';
      if (kept.length > 0) board.print(kept.map((text) => `[${name}] ${text}`));
      kept.length = 0;
    },
  };
  if (io.signal) targetIo.signal = io.signal;
  targetIo.now = now;
  return targetIo;
}
