/**
 * Everything `sitesync apply` writes to stdout, in one place: the plan first,
 * then the summary (human), or one JSON document holding the plan and the
 * result or the refusal (--format json).
 */
import { type Acknowledgements, acknowledgedBy as acknowledgedByFlags } from '../apply/acknowledge.js';
import type { Answer } from '../engine/apply-target.js';
import { type ApplyRefusal, type ApplyResult, succeeded } from '../model/apply-result.js';
import type { Plan } from '../model/plan.js';
import { applyResultLines, cancelledText, renderApplyJson } from '../render/apply-result.js';
import { type ErrorJson, renderApplyError } from '../render/error-document.js';
import { paint, planDocument, renderHuman } from '../render/index.js';
import type { CliContext } from './events.js';
import { exitCodeFor } from './exit-code.js';
import type { Io } from './io.js';
import { type ProgressReporter, progressReporter } from './progress.js';
import type { SharedOptions } from './shared-options.js';

/** When a person is asked, the human plan also goes to stderr under --format json, so whoever types `yes` has seen it. */
export class ApplyOutput {
  readonly #shared: SharedOptions;
  readonly #io: Io;
  #plan: Record<string, unknown> | undefined;
  #written = false;

  constructor(shared: SharedOptions, io: Io) {
    this.#shared = shared;
    this.#io = io;
  }

  plan(plan: Plan, target: string, asking: boolean, acks: Acknowledgements): void {
    const acknowledgedBy = plan.safety.map((violation) => acknowledgedByFlags(violation, acks));
    const human = renderHuman(plan, { color: this.#shared.color, target, acknowledgedBy });
    if (this.#shared.format === 'human') {
      this.#io.stdout.write(human);
      return;
    }
    this.#plan = planDocument(plan, { target });
    if (asking) this.#io.stderr.write(human);
  }

  nothingToDo(): number {
    this.#json({ ok: true });
    return exitCodeFor({ kind: 'done' });
  }

  cancelled(answer: Exclude<Answer, 'yes'>, io: Io): number {
    const message = cancelledText(answer);
    io.stderr.write(`${message}\n`);
    const code = answer === 'interrupted' ? 'interrupted' : 'cancelled';
    this.refused({ code, message });
    return exitCodeFor({ kind: 'refused', code });
  }

  refused(refusal: ApplyRefusal): void {
    this.#json({ ok: false, refusal });
  }

  /**
   * Follows the engine's events while it applies: the plan it made (shown
   * first), then a progress line for the writes, with the client's notices
   * above it. Returns the function that stops following.
   */
  follow(context: CliContext, asking: boolean, acks: Acknowledgements): () => void {
    let progress: ProgressReporter | undefined;
    let ticker: ReturnType<typeof setInterval> | undefined;
    const notice = context.route.notice;
    context.route.view = (event) => {
      if (event.type === 'planned') this.plan(event.plan, event.target, asking, acks);
      else if (event.type === 'writing') {
        const { pacing, requestsAfter } = event;
        progress = progressReporter(this.#io.stderr, event.total, { pacing, requestsAfter });
        const shown = progress;
        context.route.notice = (line) => shown.notice(line);
        // A wait for the rate limit may last a minute: the live line counts it down instead of freezing.
        ticker = this.#io.stderr.isTTY ? setInterval(() => shown.tick(), 1_000) : undefined;
        ticker?.unref();
      } else if (event.type === 'change') progress?.onProgress(event.progress);
      else return false;
      return true;
    };
    return () => {
      clearInterval(ticker);
      progress?.end();
      context.route.notice = notice;
      context.route.view = undefined;
    };
  }

  result(result: ApplyResult): void {
    const ok = succeeded(result);
    if (this.#shared.format === 'json') this.#json({ ok, result });
    else this.#io.stdout.write(paint(applyResultLines(result), this.#shared.color));
  }

  /** A failure that is not a refusal (config, network, usage, a bug): under --format json, a document all the same. */
  failed(error: ErrorJson): void {
    if (this.#shared.format !== 'json' || this.#written) return;
    this.#written = true;
    this.#io.stdout.write(renderApplyError(error, this.#plan ?? null));
  }

  /** The JSON document, once, and only after the plan is known. */
  #json(parts: { ok: boolean; result?: ApplyResult; refusal?: ApplyRefusal }): void {
    if (this.#shared.format !== 'json' || this.#plan === undefined || this.#written) return;
    this.#written = true;
    this.#io.stdout.write(renderApplyJson({ plan: this.#plan, ...parts }));
  }
}
