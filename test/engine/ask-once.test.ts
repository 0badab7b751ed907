/**
 * The one question of an interactive apply over targets names the targets in
 * the order they were given, whichever plan is ready first (the plans run at
 * once, so their order of completion is the network's).
 */
import { describe, expect, it } from 'vitest';
import { AskOnce } from '../../src/engine/ask-once.js';
import type { Plan } from '../../src/model/plan.js';

const planOf = (create: number) => ({ summary: { create, update: 0, delete: 0 } }) as unknown as Plan;

describe('AskOnce', () => {
  it('shows the plans and names the targets in their given order, whichever is ready first', async () => {
    const questions: string[] = [];
    const printed: string[] = [];
    const ask = new AskOnce(['staging', 'production'], {
      render: (_plan, target) => `plan of ${target}\n`,
      ask: async (question) => {
        questions.push(question);
        return 'no';
      },
    });
    const print = (lines: readonly string[]) => printed.push(lines[0]!);
    const production = ask.confirm('production', planOf(2), 'https://prod.example', print);
    const staging = ask.confirm('staging', planOf(1), 'https://staging.example', print);
    expect(await Promise.all([staging, production])).toEqual(['no', 'no']);
    expect(printed).toEqual([
      '=== target staging (https://staging.example)',
      '=== target production (https://prod.example)',
    ]);
    expect(questions).toEqual([
      'Apply to 2 targets (staging: 1 to create, 0 to update, 0 to delete; production: 2 to create, 0 to update, 0 to delete)? Only "yes" is accepted: ',
    ]);
  });
});
