/**
 * Everything `sitesync apply` writes to stdout, in one place: the plan first,
 * then the summary (human), or one JSON document holding the plan and the
 * result or the refusal (--format json).
 */
import { type Acknowledgements, acknowledgedBy as acknowledgedByFlags } from '../apply/acknowledge.js';
import type { ApplyRefusal, ApplyResult } from '../model/apply-result.js';
import type { Plan } from '../model/plan.js';
import { applyResultLines, cancelledText, renderApplyJson } from '../render/apply-result.js';
import { type ErrorJson, renderApplyError } from '../render/error-document.js';
import { paint, planDocument, renderHuman } from '../render/index.js';
import { exitCodeFor } from './exit-code.js';
import type { Io } from './io.js';
import type { SharedOptions } from './shared-options.js';

/** The answer at the confirmation prompt: `eof` is Ctrl-D, `interrupted` Ctrl-C or SIGTERM. */
export type Answer = 'yes' | 'no' | 'eof' | 'interrupted';

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

  result(result: ApplyResult, ok: boolean): void {
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
