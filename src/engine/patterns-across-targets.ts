/**
 * Domains and globs given on the command line over targets (docs/plan-format.md,
 * Targets): a pattern is a typo only when it matches nothing in ANY chosen
 * target. `--only`: configured or live websites; the configured domains of
 * every target are known before the fan-out (`spanDomains`), the live ones
 * only after each target has listed its account. `--allow-delete`: planned
 * deletes, known after each target has planned. Each target reports the
 * patterns it did not match, and the run decides once every target has
 * reported (or ended without reporting: then a pattern it might have matched
 * is not called a typo).
 */
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { matchesGlob } from '../model/glob.js';

export class PatternsAcrossTargets {
  readonly #patterns: readonly string[];
  /** The refusal's words: `--only X matches no website … of any chosen target (staging, production)`. */
  readonly #flag: string;
  readonly #matchesNo: string;
  readonly #names: string;
  readonly #unmatched: Set<string>;
  readonly #pending: Set<string>;
  readonly #waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #unknown = false;

  /** `matched`: the domains known to be matched before any target reports. */
  constructor(
    words: { flag: string; matchesNo: string },
    patterns: readonly string[],
    targets: readonly string[],
    matched: readonly string[] = [],
  ) {
    this.#flag = words.flag;
    this.#matchesNo = words.matchesNo;
    this.#patterns = patterns;
    this.#names = targets.join(', ');
    this.#pending = new Set(targets);
    this.#unmatched = new Set(patterns.filter((glob) => !matched.some((domain) => matchesGlob(domain, glob))));
  }

  /** --only over `chosen` (undefined without it); `span`: the domains they configure. */
  static only(
    only: readonly string[],
    chosen: readonly TargetDeclaration[],
    span: readonly string[] | undefined,
    flag = '--only',
  ): PatternsAcrossTargets | undefined {
    if (only.length === 0) return undefined;
    const words = { flag, matchesNo: 'matches no website in the configuration or the account' };
    return new PatternsAcrossTargets(words, only, namesOf(chosen), span);
  }

  /** --allow-delete over `chosen` (undefined without it): decided by the planned deletes. */
  static allowDelete(
    globs: readonly string[],
    chosen: readonly TargetDeclaration[],
    flag = '--allow-delete',
  ): PatternsAcrossTargets | undefined {
    if (globs.length === 0) return undefined;
    return new PatternsAcrossTargets({ flag, matchesNo: 'matches no planned delete' }, globs, namesOf(chosen));
  }

  /** The hook a target's run calls with what it did not match (after listing, or planning). */
  hookFor(name: string, wait: boolean): (unmatched: readonly string[]) => Promise<void> {
    return (unmatched) => this.report(name, unmatched, wait);
  }

  /** Whether some pattern needs the targets' reports to be decided: then every target must report before any writes. */
  get undecided(): boolean {
    return this.#unmatched.size > 0;
  }

  /**
   * Target `name` listed and did not match `unmatched` (of the patterns).
   * `wait`: resolves once the run has decided (every target listed or ended),
   * and rejects when a pattern matched nothing anywhere; else returns at once.
   */
  report(name: string, unmatched: readonly string[], wait: boolean): Promise<void> {
    for (const glob of this.#patterns) if (!unmatched.includes(glob)) this.#unmatched.delete(glob);
    const decided = new Promise<void>((resolve, reject) => {
      if (wait) this.#waiting.push({ resolve, reject });
      else resolve();
    });
    this.#pending.delete(name);
    this.#settle();
    return decided;
  }

  /** Target `name` ended; if it never listed, its account is unknown and no pattern is called a typo. */
  end(name: string): void {
    if (!this.#pending.delete(name)) return;
    this.#unknown = true;
    this.#settle();
  }

  /** After every target ended: the usage error when a pattern matched nothing in any chosen target. */
  refusal(): SitesyncError | undefined {
    if (this.#pending.size > 0 || this.#unknown || this.#unmatched.size === 0) return undefined;
    const unmatched = [...this.#unmatched].join(', ');
    return new SitesyncError(
      'usage',
      `${this.#flag} ${unmatched} ${this.#matchesNo} of any chosen target (${this.#names})`,
    );
  }

  #settle(): void {
    if (this.#unmatched.size > 0 && this.#pending.size > 0) return;
    const refusal = this.refusal();
    for (const waiter of this.#waiting.splice(0)) {
      if (refusal === undefined) waiter.resolve();
      else waiter.reject(refusal);
    }
  }
}

const namesOf = (chosen: readonly TargetDeclaration[]) => chosen.map((target) => target.name);
