/**
 * `sitesync apply [-f FILE]...` plans, shows the plan and asks for `yes` (or
 * takes `--auto-approve`); `sitesync apply plan.json` applies a reviewed plan
 * file without asking, if it is still true. Both enforce the plan's safety
 * rules (acknowledged per domain), then hand the plan to the apply engine with
 * a journal and progress, print the summary, and return the exit code.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import type { WebsitesApi } from '../../api/index.js';
import { type Acknowledgements, refusalMessage, unacknowledged } from '../../apply/acknowledge.js';
import { applyPlan } from '../../apply/apply-plan.js';
import { type Journal, openJournal } from '../../apply/journal.js';
import { lockPlanFile } from '../../apply/plan-lock.js';
import { progressReporter } from '../../apply/progress.js';
import { applyResultLines, renderApplyResultJson } from '../../apply/render-result.js';
import { succeeded } from '../../apply/result.js';
import type { MovedSite } from '../../apply/staleness.js';
import { checkFreshness } from '../../apply/staleness.js';
import type { DesiredState } from '../../model/desired-state.js';
import { SitesyncError } from '../../model/errors.js';
import { isValidGlob } from '../../model/glob.js';
import type { Plan } from '../../model/plan.js';
import type { DesiredWebsite } from '../../model/website.js';
import { createSavedPlan, plan as makePlan, parseSavedPlan, policyFromConfig } from '../../plan/index.js';
import { paint, renderHuman } from '../../render/index.js';
import { EXIT, type Io } from '../io.js';
import type { CommandContext } from '../main.js';
import { addSharedOptions, openClient, readSharedOptions, type SharedOptions } from '../shared-options.js';
import { loadDesiredState } from './plan.js';

interface ApplyFlags {
  autoApprove?: boolean;
  allowDelete?: string[];
  maxDeletes?: string;
  parallelism: string;
  journal?: string;
  syncWriteOnly?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function registerApply(program: Command, context: CommandContext): void {
  const command = program
    .command('apply')
    .description('apply the configuration (plan, confirm, apply), or a saved plan file as reviewed')
    .argument('[plan-file]', 'a plan saved with `sitesync plan --out`: applied without a prompt if still true');
  addSharedOptions(command)
    .addOption(new Option('--auto-approve', 'apply without asking (required off a terminal)'))
    .addOption(
      new Option('--allow-delete <domain-or-glob>', 'acknowledge deleting this domain (repeatable)').argParser(collect),
    )
    .addOption(new Option('--max-deletes <n>', 'acknowledge up to N deletes (raises limits.max_deletes)'))
    .addOption(new Option('--parallelism <n>', 'changes in flight at once').default('4'))
    .addOption(new Option('--journal <file>', 'append one JSON line per operation to FILE'))
    .addOption(new Option('--sync-write-only', 're-send every configured write-only value'))
    .action(async (planFile, raw) => {
      await context.run(async () => {
        const shared = readSharedOptions(raw, context.io);
        return runApply(planFile, shared, raw, context.io);
      });
    });
}

async function runApply(
  planFile: string | undefined,
  shared: SharedOptions,
  flags: ApplyFlags,
  io: Io,
): Promise<number> {
  const acks: Acknowledgements = { allowDelete: flags.allowDelete ?? [] };
  const badGlob = acks.allowDelete.find((glob) => !isValidGlob(glob));
  if (badGlob !== undefined) {
    throw new SitesyncError(
      'usage',
      `--allow-delete ${JSON.stringify(badGlob)}: not a domain or glob (letters, digits, . - _ * ?)`,
    );
  }
  if (flags.maxDeletes !== undefined) acks.maxDeletes = wholeNumber('--max-deletes', flags.maxDeletes, 0);
  const parallelism = wholeNumber('--parallelism', flags.parallelism, 1);
  if (planFile !== undefined) return applySavedPlan(planFile, shared, flags, acks, parallelism, io);

  const session = connect(shared, parallelism, io);
  try {
    const live = await session.api.listWebsites(io.signal ? { signal: io.signal } : {});
    const policy = policyFromConfig(session.state.policy, {
      only: shared.only,
      skip: shared.skip,
      syncWriteOnly: flags.syncWriteOnly === true,
    });
    const planned = makePlan(session.state.websites, live, policy);
    // Whoever is asked to type `yes` sees the plan, even when stdout is JSON for a program.
    const shown = renderHuman(planned, { color: shared.color, target: session.api.url });
    if (shared.format === 'human') io.stdout.write(shown);
    else if (flags.autoApprove !== true && io.prompt) io.stderr.write(shown);
    if (planned.changes.length === 0) return EXIT.ok;
    const refusal = refuseUnsafe(planned, acks, io);
    if (refusal !== undefined) return refusal;
    const run: Execution = { liveCount: live.length, parallelism, flags, shared };
    if (flags.autoApprove !== true) {
      if (!(await confirmed(io))) return EXIT.error;
      // A person may take minutes to answer: check that the plan still holds, as for a saved plan.
      const asSaved = createSavedPlan({
        target: session.api.url,
        configDigest: session.state.digest,
        policy,
        plan: planned,
      });
      const fresh = await checkFreshness(asSaved, session.api, io.signal);
      if (fresh.moved.length > 0) {
        throw new SitesyncError('stale_plan', staleMessage('the plan', fresh.moved, 'sitesync apply'));
      }
      run.skip = fresh.alreadyApplied;
    }
    return await execute(planned, session, run, io);
  } finally {
    await session.api.close();
  }
}

async function applySavedPlan(
  planFile: string,
  shared: SharedOptions,
  flags: ApplyFlags,
  acks: Acknowledgements,
  parallelism: number,
  io: Io,
): Promise<number> {
  const path = isAbsolute(planFile) ? planFile : resolve(io.cwd, planFile);
  const saved = parseSavedPlan(readPlanFile(path, planFile), planFile);
  const lock = lockPlanFile(path);
  let session: Session | undefined;
  try {
    session = connect(shared, parallelism, io);
    if (session.api.url !== saved.target) {
      throw new SitesyncError('stale_plan', `${planFile} was made for ${saved.target}, not ${session.api.url}`);
    }
    if (session.state.digest !== saved.configDigest) {
      throw new SitesyncError(
        'stale_plan',
        `the configuration changed since ${planFile} was made (or other -f files were given): run plan again and review it`,
      );
    }
    const refusal = refuseUnsafe(saved.plan, acks, io);
    if (refusal !== undefined) return refusal;
    const fresh = await checkFreshness(saved, session.api, io.signal);
    if (fresh.moved.length > 0) {
      throw new SitesyncError('stale_plan', staleMessage(planFile, fresh.moved, `sitesync plan --out ${planFile}`));
    }
    const skip = fresh.alreadyApplied;
    return await execute(saved.plan, session, { liveCount: fresh.liveCount, parallelism, flags, shared, skip }, io);
  } finally {
    await session?.api.close();
    lock.release();
  }
}

interface Session {
  state: DesiredState;
  api: WebsitesApi;
}

/** The configuration (every problem printed before failing) and a client for it; the caller closes `api`. */
function connect(shared: SharedOptions, parallelism: number, io: Io): Session {
  const state = loadDesiredState(shared, io);
  // One socket per change in flight, so --parallelism is not capped by the pool.
  return { state, api: openClient(shared, io, state.apiUrl, parallelism) };
}

interface Execution {
  liveCount: number;
  parallelism: number;
  flags: ApplyFlags;
  shared: SharedOptions;
  skip?: ReadonlyMap<string, string>;
}

async function execute(plan: Plan, session: Session, run: Execution, io: Io): Promise<number> {
  if (io.signal?.aborted) {
    io.stderr.write('interrupted before applying anything\n');
    return EXIT.interrupted;
  }
  const journal: Journal | undefined = run.flags.journal ? openJournal(resolve(io.cwd, run.flags.journal)) : undefined;
  const progress = progressReporter(io.stderr);
  const desired = new Map<string, DesiredWebsite>(session.state.websites.map((site) => [site.domain, site]));
  try {
    journal?.record({ event: 'begin', target: session.api.url, total: plan.changes.length });
    const result = await applyPlan(plan, desired, session.api, {
      parallelism: run.parallelism,
      ...(io.signal && { signal: io.signal }),
      ...(journal && { journal }),
      ...(run.skip && { skip: run.skip }),
      liveCount: run.liveCount + plan.changes.filter((c) => c.action === 'create').length,
      onProgress: (event) => progress.onProgress(event),
    });
    progress.end();
    const ok = succeeded(result);
    journal?.record({
      event: 'end',
      counts: result.counts,
      interrupted: result.interrupted,
      divergences: result.verification.divergences,
    });
    const summary =
      run.shared.format === 'json'
        ? renderApplyResultJson(result, ok)
        : paint(applyResultLines(result), run.shared.color);
    io.stdout.write(summary);
    if (result.interrupted) return EXIT.interrupted;
    return ok ? EXIT.ok : EXIT.error;
  } finally {
    progress.end();
    journal?.close();
  }
}

/** Exit 3 with the exact acknowledgement to give, or undefined when the plan is safe (or acknowledged). */
function refuseUnsafe(plan: Plan, acks: Acknowledgements, io: Io): number | undefined {
  const open = unacknowledged(plan.safety, acks);
  if (open.length === 0) return undefined;
  io.stderr.write(`${refusalMessage(open, acks)}\n`);
  return EXIT.unsafe;
}

async function confirmed(io: Io): Promise<boolean> {
  if (io.prompt === undefined) {
    throw new SitesyncError(
      'usage',
      'not a terminal, so there is no one to confirm: pass --auto-approve, or apply a reviewed plan file (sitesync plan --out plan.json; sitesync apply plan.json)',
    );
  }
  const answer = await io.prompt('Apply these changes? Only "yes" is accepted: ');
  if (answer.trim() === 'yes') return true;
  io.stderr.write('Apply cancelled: nothing was changed.\n');
  return false;
}

/** The refusal of a stale plan: each site that moved, and what to run instead. */
function staleMessage(what: string, moved: readonly MovedSite[], rerun: string): string {
  const lines = [`${what} is stale: ${moved.length} site${moved.length === 1 ? '' : 's'} moved since it was made:`];
  for (const site of moved) lines.push(`  ${site.domain}: ${site.how}`);
  lines.push(`Nothing was applied. Run \`${rerun}\` again and review the new plan.`);
  return lines.join('\n');
}

function readPlanFile(path: string, shown: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new SitesyncError('usage', `${shown}: ${reason}`);
  }
}

function wholeNumber(option: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min) {
    throw new SitesyncError('usage', `${option} ${JSON.stringify(text)}: expected a whole number ≥ ${min}`);
  }
  return value;
}
