/**
 * Everything `sitesync apply` writes to stdout, in one place: the plan first,
 * then the summary (human), or one JSON document holding the plan and the
 * result or the refusal (--format json).
 */
import { type Acknowledgements, acknowledgedBy as acknowledgedByFlags } from '../apply/acknowledge.js';
import type { Answer } from '../engine/apply-target.js';
import { type ApplyRefusal, type ApplyResult, succeeded } from '../model/apply-result.js';
import type { Plan } from '../model/plan.js';
import { jsonDocument } from '../model/text.js';
import { applyJson, applyResultLines, cancelledText } from '../render/apply-result.js';
import { applyErrorJson, type ErrorJson } from '../render/error-document.js';
import { paint, planDocument, renderHuman } from '../render/index.js';
import type { Io } from './io.js';
import type { SharedOptions } from './shared-options.js';

/** When a person is asked, the human plan also goes to stderr under --format json, so whoever types `yes` has seen it. */
export class ApplyOutput {
  readonly #shared: SharedOptions;
  readonly #io: Io;
  #plan: Record<string, unknown> | undefined;
  /** The JSON document written (--format json), kept for the document over targets. */
  #document: Record<string, unknown> | undefined;

  constructor(shared: SharedOptions, io: Io) {
    this.#shared = shared;
    this.#io = io;
  }

  plan(plan: Plan, target: string, asking: boolean, acks: Acknowledgements): void {
    const acknowledgedBy = plan.safety.map((violation) => acknowledgedByFlags(violation, acks));
    const human = renderHuman(plan, {
      color: this.#shared.color,
      target,
      acknowledgedBy,
      allowPolicy: acks.allowPolicy ?? [],
    });
    if (this.#shared.format === 'human') {
      this.#io.stdout.write(human);
      return;
    }
    this.#plan = planDocument(plan, { target });
    if (asking) this.#io.stderr.write(human);
  }

  nothingToDo(): void {
    this.#json({ ok: true });
  }

  /** The answer was not `yes`: said on stderr, and the refusal's code. */
  cancelled(answer: Exclude<Answer, 'yes'>): 'interrupted' | 'cancelled' {
    const message = cancelledText(answer);
    this.#io.stderr.write(`${message}\n`);
    const code = answer === 'interrupted' ? 'interrupted' : 'cancelled';
    this.refused({ code, message });
    return code;
  }

  refused(refusal: ApplyRefusal): void {
    this.#json({ ok: false, refusal });
  }

  result(result: ApplyResult): void {
    const ok = succeeded(result);
    if (this.#shared.format === 'json') this.#json({ ok, result });
    else this.#io.stdout.write(paint(applyResultLines(result), this.#shared.color));
  }

  /** A failure that is not a refusal (config, network, usage, a bug): under --format json, a document all the same. */
  failed(error: ErrorJson): void {
    if (this.#shared.format !== 'json' || this.#document !== undefined) return;
    this.#write(applyErrorJson(error, this.#plan ?? null));
  }

  /** The JSON document written, if any. */
  document(): Record<string, unknown> | undefined {
    return this.#document;
  }

  /** The JSON document, once, and only after the plan is known. */
  #json(parts: { ok: boolean; result?: ApplyResult; refusal?: ApplyRefusal }): void {
    if (this.#shared.format !== 'json' || this.#plan === undefined || this.#document !== undefined) return;
    this.#write(applyJson({ plan: this.#plan, ...parts }));
  }

  #write(document: Record<string, unknown>): void {
    this.#document = document;
    this.#io.stdout.write(jsonDocument(document));
  }
}
