/**
 * `--only` over targets (docs/plan-format.md, Targets): a domain or glob is a
 * typo only when it matches nothing in ANY chosen target, configured or live.
 * The configured domains of every target are known before the fan-out
 * (`spanDomains`); the live ones only after each target has listed its
 * account, so each target reports the patterns it did not match here, and
 * the run decides once every target has listed (or ended without listing:
 * then a pattern it might have matched is not called a typo).
 */
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { matchesGlob } from '../model/glob.js';

export class OnlyAcrossTargets {
  readonly #patterns: readonly string[];
  readonly #names: string;
  readonly #unmatched: Set<string>;
  readonly #pending: Set<string>;
  readonly #waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #unknown = false;

  /** `configured`: the domains every chosen target configures, matched before any target lists. */
  constructor(patterns: readonly string[], targets: readonly string[], configured: readonly string[]) {
    this.#patterns = patterns;
    this.#names = targets.join(', ');
    this.#pending = new Set(targets);
    this.#unmatched = new Set(patterns.filter((glob) => !configured.some((domain) => matchesGlob(domain, glob))));
  }

  /** For a run over `chosen` with --only (else undefined); `span`: the domains they configure. */
  static of(
    only: readonly string[],
    chosen: readonly TargetDeclaration[],
    span: readonly string[] | undefined,
  ): OnlyAcrossTargets | undefined {
    if (only.length === 0) return undefined;
    return new OnlyAcrossTargets(
      only,
      chosen.map((target) => target.name),
      span ?? [],
    );
  }

  /** The hook a target's run calls after listing (SharedOptions.onlyAcrossTargets). */
  hookFor(name: string, wait: boolean): (unmatched: readonly string[]) => Promise<void> {
    return (unmatched) => this.report(name, unmatched, wait);
  }

  /** Whether some pattern needs the live listings to be decided: then every target must list before any writes. */
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
    return new SitesyncError(
      'usage',
      `--only ${[...this.#unmatched].join(', ')} matches no website in the configuration or the account of any chosen target (${this.#names})`,
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
