/**
 * Issue 33 item 6: a 4 MB websites.yaml of 190,000 unknown top-level keys
 * (under the 4 MiB cap) held `validate` and watch's reload for 8.7-10 s at
 * ~480 MB, and SIGTERM waited for it. The load pauses for the event loop as
 * it reads (every 64 KB of text) and walks only what it lists: the first 100
 * unknown keys of a mapping are problems, the rest are counted. Driven by the
 * event loop's turns, not by time (the figures: bench/hostile-config.ts).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, MAX_LISTED_PROBLEMS } from '../../src/config/index.js';
import { SitesyncError } from '../../src/model/errors.js';
import { tempConfigDir, unknownKeysFile } from './helpers.js';

/**
 * `loadConfig` on `cwd`, counting the event loop's turns from the moment the
 * file has been read (`onRead`) to the end of the load; `onTurn` is told each.
 */
async function turnsWhileLoading(cwd: string, onTurn: (turn: number) => void = () => {}, signal?: AbortSignal) {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    onTurn(++turns);
    setImmediate(turn);
  };
  try {
    const result = await loadConfig({ files: [], cwd, env: {}, signal, onRead: () => setImmediate(turn) });
    return { result, turns };
  } catch (error) {
    return { error, turns };
  } finally {
    running = false;
  }
}

describe('a 4 MB file of 190,000 unknown keys', () => {
  const text = unknownKeysFile();
  const cwd = tempConfigDir({ 'websites.yaml': text });

  it('is parsed and checked with a pause at least every 64 KB, listing the first 100 problems and counting the rest', async () => {
    const { result, turns } = await turnsWhileLoading(cwd);
    expect(turns).toBeGreaterThanOrEqual(text.length / (64 * 1024));
    expect(result?.state).toBeUndefined();
    expect(result?.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(result?.omitted).toEqual({ errors: 190_000 - MAX_LISTED_PROBLEMS, warnings: 0 });
    expect(result?.errors[0]).toMatchObject({ path: 'unknown_key_000000', source: { line: 4, column: 1 } });
    expect(result?.errors.at(-1)).toMatchObject({ path: 'unknown_key_000099', source: { line: 103, column: 1 } });
  }, 120_000);

  it('stops at the next pause when its signal aborts (SIGTERM during validate or a reload)', async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const { error, turns } = await turnsWhileLoading(
      cwd,
      (turn) => {
        if (turn !== 10) return;
        abortedAt = turn;
        controller.abort(new Error('SIGTERM'));
      },
      controller.signal,
    );
    expect(abortedAt).toBe(10); // still loading at the 10th turn
    expect(error).toBeInstanceOf(SitesyncError);
    expect(error).toMatchObject({ code: 'interrupted' });
    expect(turns).toBeLessThanOrEqual(abortedAt + 1);
  }, 120_000);
});
