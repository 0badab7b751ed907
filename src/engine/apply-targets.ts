/**
 * What `apply` over several targets (docs/config.md, Targets) needs beyond
 * each target's own apply: which targets a run or a saved plan's parts
 * choose, each target's journal file, and the all-or-nothing barrier that
 * lets no target write until every target has passed its checks.
 */
import { basename, dirname, extname, join } from 'node:path';
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import type { SavedPlanSet } from '../plan/index.js';
import type { RunRequest } from './request.js';
import { selectTargets } from './targets.js';

/** A saved plan over targets, and the file it came from (for messages). */
export interface PlanSetFile {
  file: string;
  plan: SavedPlanSet;
}

/** The targets a run applies: chosen by --target among the declared ones, or among the saved plan's parts. */
export function chosenTargets(
  declared: readonly TargetDeclaration[],
  shared: Pick<RunRequest, 'targets'>,
  set?: PlanSetFile,
): TargetDeclaration[] {
  return set === undefined ? selectTargets(declared, shared.targets) : partsTargets(declared, set, shared.targets);
}

/** The saved plan's parts chosen by --target; each must be a target the configuration declares. */
function partsTargets(
  declared: readonly TargetDeclaration[],
  set: PlanSetFile,
  patterns: readonly string[],
): TargetDeclaration[] {
  const inFile = set.plan.targets.map((part) => part.name);
  const missing = inFile.filter((name) => !declared.some((target) => target.name === name));
  if (missing.length > 0) {
    throw new SitesyncError(
      'usage',
      `${set.file} holds target ${missing.join(', ')}, which the configuration does not declare: make the plan again`,
    );
  }
  const pool = declared.filter((target) => inFile.includes(target.name));
  return selectTargets(pool, patterns);
}

/** With targets, each target's journal is its own file: `apply-journal.jsonl` → `apply-journal.prod.jsonl`. */
export function journalFor(file: string, name: string): string {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}.${name}${ext}`);
}

/**
 * --all-or-nothing: each target arrives here after its checks, just before
 * its first write; when every target has arrived or ended, all write, or
 * (when one ended otherwise than done) none does.
 */
export class AllOrNothing {
  readonly #pending: Set<string>;
  readonly #waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  readonly #failed: string[] = [];

  constructor(names: readonly string[]) {
    this.#pending = new Set(names);
  }

  arrive(name: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#pending.delete(name);
      this.#settle();
    });
  }

  finish(name: string, ok: boolean): void {
    if (!this.#pending.delete(name)) return;
    if (!ok) this.#failed.push(name);
    this.#settle();
  }

  #settle(): void {
    if (this.#pending.size > 0) return;
    const failed = this.#failed;
    for (const waiter of this.#waiting.splice(0)) {
      if (failed.length === 0) waiter.resolve();
      else {
        const which = failed.join(', ');
        waiter.reject(
          new SitesyncError(
            'stale_plan',
            `nothing applied (--all-or-nothing): target ${which} cannot be applied; this target's part was not applied either`,
          ),
        );
      }
    }
  }
}
