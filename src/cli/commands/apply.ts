/**
 * `sitesync apply [-f FILE]...` plans, shows the plan and asks for `yes` (or
 * takes `--auto-approve`); `sitesync apply plan.json` applies a reviewed plan
 * file without asking, exactly as reviewed, if it is still true (same target,
 * account, configuration and live state). Both print the plan first, enforce
 * its safety rules (each acknowledged by its own flag), then hand it to the
 * apply engine with a journal and progress, print the summary, and return the
 * exit code. With --format json, stdout carries one document: plan and result
 * (or refusal).
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
import { type ApplyResult, succeeded } from '../../apply/result.js';
import type { MovedSite } from '../../apply/staleness.js';
import { checkFreshness } from '../../apply/staleness.js';
import type { DesiredState } from '../../model/desired-state.js';
import { isSitesyncError, SitesyncError } from '../../model/errors.js';
import type { Plan } from '../../model/plan.js';
import type { DesiredWebsite } from '../../model/website.js';
import { createSavedPlan, plan as makePlan, parseSavedPlan, policyFromConfig } from '../../plan/index.js';
import { EXIT, type Io } from '../io.js';
import type { CommandContext } from '../main.js';
import { globsOption, wholeNumberOption } from '../option-values.js';
import {
  addSharedOptions,
  collect,
  connectionOf,
  openClient,
  readSharedOptions,
  type SharedOptions,
} from '../shared-options.js';
import { type Answer, ApplyOutput } from './apply-output.js';
import { loadDesiredState } from './plan.js';

interface ApplyFlags {
  autoApprove?: boolean;
  allowDelete?: string[];
  maxDeletes?: string;
  maxChangePercent?: string;
  parallelism: string;
  journal?: string;
  syncWriteOnly?: boolean;
}

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
    .addOption(
      new Option(
        '--max-change-percent <n>',
        'acknowledge changing up to N% of the sites (raises limits.max_change_percent)',
      ),
    )
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
  const started = Date.now();
  const acks = readAcknowledgements(flags);
  const parallelism = wholeNumber('--parallelism', flags.parallelism, 1);
  const output = new ApplyOutput(shared, io);
  const run = { started, parallelism, flags, shared, acks, output };
  try {
    if (planFile !== undefined) return await applySavedPlan(planFile, run, io);
    return await applyConfiguration(run, io);
  } catch (error) {
    if (isSitesyncError(error) && (error.code === 'stale_plan' || error.code === 'interrupted')) {
      output.refused({ code: error.code, message: error.message });
    }
    throw error;
  }
}

interface Run {
  started: number;
  parallelism: number;
  flags: ApplyFlags;
  shared: SharedOptions;
  acks: Acknowledgements;
  output: ApplyOutput;
}

function readAcknowledgements(flags: ApplyFlags): Acknowledgements {
  const acks: Acknowledgements = { allowDelete: globsOption('--allow-delete', flags.allowDelete, 'a domain or glob') };
  if (flags.maxDeletes !== undefined) acks.maxDeletes = wholeNumber('--max-deletes', flags.maxDeletes, 0);
  if (flags.maxChangePercent !== undefined) {
    acks.maxChangePercent = wholeNumber('--max-change-percent', flags.maxChangePercent, 0);
  }
  return acks;
}

async function applyConfiguration(run: Run, io: Io): Promise<number> {
  const { shared, flags, output } = run;
  const session = connect(shared, run.parallelism, io);
  try {
    const live = await session.api.listWebsites(io.signal ? { signal: io.signal } : {});
    const policy = policyFromConfig(session.state.policy, {
      only: shared.only,
      skip: shared.skip,
      syncWriteOnly: flags.syncWriteOnly === true,
    });
    const planned = makePlan(session.state.websites, live, policy);
    const asking = flags.autoApprove !== true && io.prompt !== undefined;
    output.plan(planned, session.api.url, asking);
    if (planned.changes.length === 0) return output.nothingToDo();
    const refusal = refuseUnsafe(planned, run, io);
    if (refusal !== undefined) return refusal;
    const execution: Execution = { liveCount: live.length, run };
    if (flags.autoApprove !== true) {
      const answer = await confirmed(io);
      if (answer !== 'yes') return output.cancelled(answer, io);
      // A person may take minutes to answer: check that the plan still holds, as for a saved plan.
      const asSaved = createSavedPlan({
        target: session.api.url,
        configDigest: session.state.digest,
        keyId: '',
        policy,
        plan: planned,
      });
      const fresh = await checkFreshness(asSaved, session.api, io.signal);
      if (fresh.moved.length > 0) {
        throw new SitesyncError('stale_plan', staleMessage('the plan', fresh.moved, 'sitesync apply'));
      }
      execution.skip = fresh.alreadyApplied;
    }
    return await execute(planned, session, execution, io);
  } finally {
    await session.api.close();
  }
}

/** Options that change what is planned cannot change a reviewed plan: it is applied exactly as saved. */
function refusePlanningFlags(planFile: string, shared: SharedOptions, flags: ApplyFlags): void {
  const given = [
    ...shared.only.map((glob) => `--only ${glob}`),
    ...shared.skip.map((glob) => `--skip ${glob}`),
    ...(flags.syncWriteOnly === true ? ['--sync-write-only'] : []),
  ];
  const first = given[0];
  if (first === undefined) return;
  const flag = first.split(' ')[0];
  throw new SitesyncError(
    'usage',
    `${flag} cannot be used with a saved plan: ${planFile} is applied exactly as reviewed; make a new plan with it (sitesync plan ${given.join(' ')} --out ${planFile}) and apply that`,
  );
}

async function applySavedPlan(planFile: string, run: Run, io: Io): Promise<number> {
  const { shared, flags, output } = run;
  refusePlanningFlags(planFile, shared, flags);
  const path = isAbsolute(planFile) ? planFile : resolve(io.cwd, planFile);
  const saved = parseSavedPlan(readPlanFile(path, planFile), planFile);
  output.plan(saved.plan, saved.target, false);
  const lock = lockPlanFile(path);
  let session: Session | undefined;
  try {
    session = connect(shared, run.parallelism, io);
    if (session.api.url !== saved.target) {
      throw new SitesyncError('stale_plan', `${planFile} was made for ${saved.target}, not ${session.api.url}`);
    }
    if (session.keyId !== saved.keyId) {
      throw new SitesyncError(
        'stale_plan',
        `${planFile} was made with another API key (key id ${saved.keyId}), so possibly for another account: apply it with the key it was made with, or run plan again with this key and review it`,
      );
    }
    if (session.state.digest !== saved.configDigest) {
      throw new SitesyncError(
        'stale_plan',
        `the configuration changed since ${planFile} was made (or other -f files were given): run plan again and review it`,
      );
    }
    if (saved.plan.changes.length === 0) return output.nothingToDo();
    const refusal = refuseUnsafe(saved.plan, run, io);
    if (refusal !== undefined) return refusal;
    const fresh = await checkFreshness(saved, session.api, io.signal);
    if (fresh.moved.length > 0) {
      throw new SitesyncError('stale_plan', staleMessage(planFile, fresh.moved, `sitesync plan --out ${planFile}`));
    }
    return await execute(saved.plan, session, { liveCount: fresh.liveCount, run, skip: fresh.alreadyApplied }, io);
  } finally {
    await session?.api.close();
    lock.release();
  }
}

interface Session {
  state: DesiredState;
  api: WebsitesApi;
  /** Which key (so which account) the client uses: compared with a saved plan's. */
  keyId: string;
}

/** The configuration (every problem printed before failing) and a client for it; the caller closes `api`. */
function connect(shared: SharedOptions, parallelism: number, io: Io): Session {
  const state = loadDesiredState(shared, io);
  const connection = connectionOf(shared, io, state.apiUrl);
  // One socket per change in flight, so --parallelism is not capped by the pool.
  const api = openClient(shared, io, connection, parallelism);
  return { state, api, keyId: connection.keyId };
}

interface Execution {
  liveCount: number;
  run: Run;
  skip?: ReadonlyMap<string, string>;
}

async function execute(plan: Plan, session: Session, execution: Execution, io: Io): Promise<number> {
  const { run } = execution;
  if (io.signal?.aborted) {
    const message = 'interrupted before applying anything';
    io.stderr.write(`${message}\n`);
    run.output.refused({ code: 'interrupted', message });
    return EXIT.interrupted;
  }
  const journal: Journal | undefined = run.flags.journal ? openJournal(resolve(io.cwd, run.flags.journal)) : undefined;
  const progress = progressReporter(io.stderr);
  const desired = new Map<string, DesiredWebsite>(session.state.websites.map((site) => [site.domain, site]));
  try {
    journal?.record({ event: 'begin', target: session.api.url, total: plan.changes.length });
    const applied = await applyPlan(plan, desired, session.api, {
      parallelism: run.parallelism,
      ...(io.signal && { signal: io.signal }),
      ...(journal && { journal }),
      ...(execution.skip && { skip: execution.skip }),
      liveCount: execution.liveCount + plan.changes.filter((c) => c.action === 'create').length,
      onProgress: (event) => progress.onProgress(event),
    });
    progress.end();
    // The whole command: the listing or staleness check counts as much as the writes.
    const result: ApplyResult = {
      ...applied,
      requests: session.api.stats.requests,
      elapsedMs: Date.now() - run.started,
    };
    const ok = succeeded(result);
    journal?.record({
      event: 'end',
      counts: result.counts,
      interrupted: result.interrupted,
      divergences: result.verification.divergences,
    });
    run.output.result(result, ok);
    if (result.interrupted) return EXIT.interrupted;
    return ok ? EXIT.ok : EXIT.error;
  } finally {
    progress.end();
    journal?.close();
  }
}

/** Exit 3 with the exact acknowledgement to give, or undefined when the plan is safe (or acknowledged). */
function refuseUnsafe(plan: Plan, run: Run, io: Io): number | undefined {
  const open = unacknowledged(plan.safety, run.acks);
  if (open.length === 0) return undefined;
  const message = refusalMessage(open, run.acks);
  io.stderr.write(`${message}\n`);
  run.output.refused({ code: 'unsafe_plan', message });
  return EXIT.unsafe;
}

/** `yes`, another answer, `eof` (Ctrl-D) or `interrupted` (Ctrl-C, or SIGTERM while asking). */
async function confirmed(io: Io): Promise<Answer> {
  if (io.prompt === undefined) {
    throw new SitesyncError(
      'usage',
      'not a terminal, so there is no one to confirm: pass --auto-approve, or apply a reviewed plan file (sitesync plan --out plan.json; sitesync apply plan.json)',
    );
  }
  let answer: string | undefined;
  try {
    answer = await io.prompt('Apply these changes? Only "yes" is accepted: ');
  } catch (error) {
    if (isSitesyncError(error) && error.code === 'interrupted') return 'interrupted';
    throw error;
  }
  if (answer === undefined) return 'eof';
  return answer.trim() === 'yes' ? 'yes' : 'no';
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

const wholeNumber = (option: string, text: string, min: number): number => wholeNumberOption(option, text, { min });
