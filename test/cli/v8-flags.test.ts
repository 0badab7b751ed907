/**
 * The V8 flags one-shot commands set at start (src/cli/v8-flags.ts) must be
 * flags this Node knows: V8 answers an unknown one on stderr ("Error:
 * unrecognized flag"), which would then open every command's output.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ONE_SHOT_FLAGS } from '../../src/cli/v8-flags.js';

describe('the V8 flags of one-shot commands', () => {
  it.each(ONE_SHOT_FLAGS)('%s is one this Node knows, set without a word', (flag) => {
    const set = `require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`;
    const run = spawnSync(process.execPath, ['-e', set], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('an unknown flag would be reported (what the check above relies on)', () => {
    const run = spawnSync(process.execPath, ['-e', `require('node:v8').setFlagsFromString('--no-such-v8-flag')`], {
      encoding: 'utf8',
    });
    expect(run.stderr).toContain('unrecognized flag');
  });
});
