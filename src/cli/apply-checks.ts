/**
 * apply's own flags, read once into an `ApplyRun`, and checked against what
 * it is applying before anything is read from the service: no planning flag with a saved plan,
 * and --mark-applied only for a whole apply of a configuration equal to HEAD
 * (then the tag moved after a fully successful apply).
 */
import type { Acknowledgements } from '../apply/acknowledge.js';
import { chosenTargets, type PlanSetFile } from '../engine/apply-targets.js';
import type { BaselineAt } from '../engine/baseline.js';
import { type MarkTarget, markApplied, prepareMarkApplied } from '../engine/mark-applied.js';
import { targetFiles } from '../engine/targets.js';
import type { DesiredState } from '../model/desired-state.js';
import { canonicalDomain } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import { ApplyOutput } from './apply-output.js';
import type { Io } from './io.js';
import { globsOption, wholeNumberOption } from './option-values.js';
import type { SharedOptions } from './shared-options.js';

/** commander's values for apply's own options. */
export interface ApplyFlags {
  autoApprove?: boolean;
  allowDelete?: string[];
  allowPolicy?: string[];
  maxDeletes?: string;
  maxChangePercent?: string;
  parallelism: string;
  journal?: string;
  syncWriteOnly?: string[] | boolean;
  targetParallelism?: string;
  allOrNothing?: boolean;
  /** A git revision, or false for --no-baseline. */
  baseline?: string | boolean;
  unlistedIsDrift?: boolean;
  /** --mark-applied TAG: move TAG to HEAD after a fully successful, verified apply. */
  markApplied?: string;
}

/** One apply command's settings, read once. */
export interface ApplyRun {
  started: number;
  parallelism: number;
  flags: ApplyFlags;
  shared: SharedOptions;
  acks: Acknowledgements;
  output: ApplyOutput;
  /** A target's run: the baseline commit, resolved once for every target (undefined: no baseline). */
  baselineAt?: BaselineAt;
  /** --mark-applied, checked before anything was written: the tag to move and the commit it moves from. */
  mark?: MarkTarget;
  /** The saved plan file being applied, as given. */
  planFile?: string;
}

/** Validates apply's options (a bad one is a usage error before anything is read). */
export function startRun(shared: SharedOptions, flags: ApplyFlags, io: Io): ApplyRun {
  const started = Date.now();
  const acks = readAcknowledgements(flags);
  const parallelism = wholeNumberOption('--parallelism', flags.parallelism, { min: 1 });
  return { started, parallelism, flags, shared, acks, output: new ApplyOutput(shared, io) };
}

function readAcknowledgements(flags: ApplyFlags): Acknowledgements {
  const acks: Acknowledgements = { allowDelete: allowDeleteOption(flags.allowDelete) };
  if (flags.allowPolicy !== undefined) acks.allowPolicy = allowPolicyOption(flags.allowPolicy);
  if (flags.maxDeletes !== undefined)
    acks.maxDeletes = wholeNumberOption('--max-deletes', flags.maxDeletes, { min: 0 });
  if (flags.maxChangePercent !== undefined) {
    acks.maxChangePercent = wholeNumberOption('--max-change-percent', flags.maxChangePercent, { min: 0, max: 100 });
  }
  return acks;
}

/** `*` alone (or `**`) would acknowledge every delete at once: a global force, which sitesync deliberately lacks. */
function allowDeleteOption(values: string[] | undefined): string[] {
  const globs = globsOption('--allow-delete', values, 'a domain or glob');
  const everything = globs.find((glob) => /^\*+$/.test(glob));
  if (everything !== undefined) {
    throw new SitesyncError(
      'usage',
      `--allow-delete ${everything} would acknowledge every delete: name each domain (or a narrower glob such as *.staging.example)`,
    );
  }
  return globs;
}

/** `NAME:DOMAIN` or `NAME`, exactly: a policy's name and a canonical domain, never a glob. */
function allowPolicyOption(values: readonly string[]): string[] {
  return values.map((value) => {
    const [name = '', domain] = value.split(/:(.*)/s);
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name) || (domain !== undefined && !/^[^\s*?]+$/.test(domain))) {
      throw new SitesyncError(
        'usage',
        `--allow-policy ${value}: expected NAME:DOMAIN (a rule over a website) or NAME (a rule over the plan), exactly, without globs`,
      );
    }
    return domain === undefined ? name : `${name}:${canonicalDomain(domain)}`;
  });
}

/** Options that change what is planned cannot change a reviewed plan: it is applied exactly as saved. */
export function refusePlanningFlags(planFile: string, { shared, flags }: ApplyRun): void {
  const given = [
    ...shared.only.map((glob) => `--only ${glob}`),
    ...shared.skip.map((glob) => `--skip ${glob}`),
    ...syncWriteOnlyWords(flags.syncWriteOnly),
    ...(typeof flags.baseline === 'string' ? [`--baseline ${flags.baseline}`] : []),
    ...(flags.unlistedIsDrift === true ? ['--unlisted-is-drift'] : []),
  ];
  const first = given[0];
  if (first === undefined) return;
  const flag = first.split(' ')[0];
  throw new SitesyncError(
    'usage',
    `${flag} cannot be used with a saved plan: ${planFile} is applied exactly as reviewed; make a new plan with it (sitesync plan ${given.join(' ')} --out ${planFile}) and apply that`,
  );
}
/** --sync-write-only as given, for the command line a refusal suggests. */
function syncWriteOnlyWords(values: string[] | boolean | undefined): string[] {
  if (values === undefined || values === false) return [];
  const given = values === true ? [] : values.filter((value) => value !== '*');
  return given.length === 0 ? ['--sync-write-only'] : given.map((value) => `--sync-write-only ${value}`);
}

/**
 * --mark-applied, checked before anything is written. Not with --only/--skip,
 * nor with only some of the declared targets: a partial apply is not "the
 * configuration was applied". With targets, their files must equal HEAD too.
 */
export async function markTarget(
  run: ApplyRun,
  root: DesiredState,
  io: Io,
  set?: PlanSetFile,
): Promise<MarkTarget | undefined> {
  const tag = run.flags.markApplied;
  if (tag === undefined) return undefined;
  const { shared } = run;
  if (shared.only.length > 0 || shared.skip.length > 0) {
    throw new SitesyncError(
      'usage',
      '--mark-applied cannot be combined with --only or --skip: the tag marks a whole apply',
    );
  }
  const declared = root.targets ?? [];
  if (declared.length > 0 && chosenTargets(declared, shared, set).length < declared.length) {
    const what = set === undefined ? 'the --target choice' : `${set.file} with the --target choice`;
    throw new SitesyncError(
      'usage',
      `--mark-applied needs every declared target (${declared.map((target) => target.name).join(', ')}), but ${what} leaves some out: the tag marks a whole apply`,
    );
  }
  const files = [...shared.files, ...declared.flatMap((target) => targetFiles([], target, io.cwd).slice(1))];
  run.mark = await prepareMarkApplied(files, tag, io);
  return run.mark;
}

/** Moves the tag after a fully successful apply (every target's, with targets). */
export async function marked(mark: MarkTarget | undefined, code: number, io: Io): Promise<number> {
  if (mark !== undefined && code === 0) io.stderr.write(`${await markApplied(mark)}\n`);
  return code;
}
