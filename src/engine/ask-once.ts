/**
 * An interactive apply over targets asks once for all (issue 22): every
 * target plans, and the question waits until each has either a plan to
 * confirm or ended (nothing to do, refused, failed). Then every waiting plan
 * is shown, one question names each target's counts, and the one answer goes
 * to all of them: `yes` applies them, anything else cancels them all.
 */

import type { Plan } from '../model/plan.js';
import type { Answer } from './apply-target.js';

interface Waiting {
  name: string;
  plan: Plan;
  target: string;
  /** Lines for the person, above the targets' status lines. */
  print: (lines: readonly string[]) => void;
  resolve: (answer: Answer) => void;
}

export interface AskOnceEdges {
  /** A target's plan as a person reads it. */
  render(plan: Plan, target: string): string;
  /** Asks the one question. */
  ask(question: string): Promise<Answer>;
}

export class AskOnce {
  /** The targets in the order given: the plans finish in the network's order, the person reads them in this one. */
  readonly #order: readonly string[];
  readonly #undecided: Set<string>;
  readonly #waiting: Waiting[] = [];
  readonly #edges: AskOnceEdges;

  constructor(names: readonly string[], edges: AskOnceEdges) {
    this.#order = names;
    this.#undecided = new Set(names);
    this.#edges = edges;
  }

  /** Target `name` has a plan to confirm: the answer comes once every target has one or has ended. */
  confirm(name: string, plan: Plan, target: string, print: Waiting['print']): Promise<Answer> {
    return new Promise((resolve) => {
      this.#waiting.push({ name, plan, target, print, resolve });
      this.#undecided.delete(name);
      void this.#settle();
    });
  }

  /** Target `name` ended (or asked already): it no longer holds the question back. */
  finish(name: string): void {
    if (this.#undecided.delete(name)) void this.#settle();
  }

  async #settle(): Promise<void> {
    if (this.#undecided.size > 0 || this.#waiting.length === 0) return;
    const rank = (each: Waiting) => this.#order.indexOf(each.name);
    const waiting = this.#waiting.splice(0).sort((a, b) => rank(a) - rank(b));
    // Each target's output is kept for the report at the end: the person sees the plans here, before answering.
    for (const { name, plan, target, print } of waiting) {
      print([`=== target ${name} (${target})`, ...this.#edges.render(plan, target).trimEnd().split('\n'), '']);
    }
    const counts = waiting.map(
      ({ name, plan: { summary } }) =>
        `${name}: ${summary.create} to create, ${summary.update} to update, ${summary.delete} to delete`,
    );
    const question = `Apply to ${waiting.length} target${waiting.length === 1 ? '' : 's'} (${counts.join('; ')})? Only "yes" is accepted: `;
    // Every waiting target must get an answer: a failed question cancels them all.
    const answer: Answer = await this.#edges.ask(question).catch(() => 'no' as const);
    for (const each of waiting) each.resolve(answer);
  }
}
