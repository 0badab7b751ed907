import { describe, expect, test } from 'vitest';
import { RateLimiter } from '../../src/api/rate-limiter.js';
import { progressReporter } from '../../src/cli/progress.js';
import type { ChangeResult } from '../../src/model/apply-result.js';
import { applyResultLines } from '../../src/render/apply-result.js';
import { changeLine, formatDuration, liveLine } from '../../src/render/progress.js';

function stream(isTTY: boolean) {
  let text = '';
  const write = (chunk: string): void => {
    text += chunk;
  };
  return { write, isTTY, text: () => text };
}

const CLEAR = '\r\x1b[K';

/** A clock whose sleeps last until the test moves time past their end (a wait the progress line can watch). */
function heldClock() {
  let now = 0;
  const sleepers: { until: number; wake: () => void }[] = [];
  return {
    now: () => now,
    sleep: (ms: number) => new Promise<void>((wake) => sleepers.push({ until: now + ms, wake })),
    advance(ms: number) {
      now += ms;
      for (const sleeper of sleepers.filter((s) => s.until <= now)) sleeper.wake();
    },
  };
}

describe('progress', () => {
  test('off a terminal: one line per finished change, none for changes an interrupt left unstarted', () => {
    const out = stream(false);
    const reporter = progressReporter(out, 3);
    reporter.onProgress({
      done: 1,
      total: 3,
      result: { action: 'delete', domain: 'a.com', id: 3, outcome: 'applied' },
    });
    reporter.onProgress({
      done: 2,
      total: 3,
      result: { action: 'create', domain: 'b.com', id: null, outcome: 'failed', reason: 'POST /api/v1/websites → 500' },
    });
    reporter.onProgress({
      done: 3,
      total: 3,
      result: { action: 'create', domain: 'c.com', id: null, outcome: 'skipped', reason: 'x', code: 'interrupted' },
    });
    reporter.end();
    expect(out.text()).toBe('applied  delete a.com\nfailed   create b.com: POST /api/v1/websites → 500\n');
  });

  test('on a terminal: one line redrawn in place with rate and time left, cleared at the end', () => {
    let now = 0;
    const out = stream(true);
    const reporter = progressReporter(out, 60, { now: () => now });
    now = 30_000;
    reporter.onProgress({
      done: 15,
      total: 60,
      result: { action: 'update', domain: 'a.com', id: 1, outcome: 'applied' },
    });
    reporter.end();
    expect(out.text()).toBe(`${CLEAR}applying 15/60 · 30.0 changes/min · about 1m 30s left${CLEAR}`);
  });

  test('under a rate limit: the time left comes from the limiter, and a wait is counted down', async () => {
    // 60 requests a minute, the window already spent (by the listing): the next request waits for the window.
    const clock = heldClock();
    const limiter = new RateLimiter({ limit: 60, clock });
    limiter.observe(60, 0);
    const out = stream(true);
    const reporter = progressReporter(out, 200, { now: clock.now, pacing: limiter, requestsAfter: 2 });
    const waiting = limiter.acquire();
    clock.advance(17_000);
    reporter.tick();
    // The window (60 s + 2 % margin) ends at 61.2 s, 44.2 s from now; 202 requests take 4 windows: the last
    // starts at 4 × 61.2 s = 244.8 s, 3m 48s from now.
    expect(out.text()).toBe(`${CLEAR}applying 0/200 · about 3m 48s left · waiting 44 s for the rate limit`);
    clock.advance(44_200);
    await waiting;
    clock.advance(100);
    reporter.onProgress({
      done: 4,
      total: 200,
      result: { action: 'update', domain: 'a.com', id: 1, outcome: 'applied' },
    });
    // 198 requests left, 1 started at 61.2 s: 59 now, then 60 per window; the last at 244.9 s, 3m 4s from now.
    // The rate so far (4 changes in 61.3 s) would say 49 minutes; the rate is the limiter's too (196 in 3m 4s).
    expect(out.text().split(CLEAR).at(-1)).toBe('applying 4/200 · 64.1 changes/min · about 3m 4s left');
  });

  test('a notice is printed on its own line, and the live line drawn again under it', () => {
    const out = stream(true);
    const reporter = progressReporter(out, 10, { now: () => 0 });
    reporter.notice('warn: before any change');
    reporter.onProgress({
      done: 1,
      total: 10,
      result: { action: 'update', domain: 'a.com', id: 1, outcome: 'applied' },
    });
    reporter.notice('warn: pacing at 60 requests/min: waiting 12 s');
    expect(out.text()).toBe(
      `warn: before any change\n${CLEAR}applying 1/10${CLEAR}warn: pacing at 60 requests/min: waiting 12 s\n${CLEAR}applying 1/10`,
    );
  });

  test('live line and durations', () => {
    expect(liveLine({ done: 0, total: 10 }, 0)).toBe('applying 0/10');
    expect(liveLine({ done: 10, total: 10 }, 1_000)).toBe('applying 10/10 · 600.0 changes/min');
    // Without a limit the rate so far decides; under one, the limiter's estimate (a burst says nothing).
    expect(liveLine({ done: 4, total: 200 }, 50)).toBe('applying 4/200 · 4800.0 changes/min · about 2s left');
    // Under a limit the rate is the limiter's too: 196 changes in 196 s is 60 a minute, not the burst's 4800.
    expect(liveLine({ done: 4, total: 200 }, 50, { etaMs: 196_000 })).toBe(
      'applying 4/200 · 60.0 changes/min · about 3m 16s left',
    );
    // Room left in the limiter's window (it says 0 s) while requests take time: the rate so far tells the time left.
    expect(liveLine({ done: 50, total: 190 }, 15_000, { etaMs: 0 })).toBe(
      'applying 50/190 · 200.0 changes/min · about 42s left',
    );
    expect(formatDuration(59_400)).toBe('59s');
    expect(formatDuration(400)).toBe('under 1s');
    expect(formatDuration(3_600_000 + 120_000)).toBe('1h 2m');
    expect(changeLine({ action: 'update', domain: 'x.org', id: 1, outcome: 'skipped', reason: 'interrupted' })).toBe(
      'skipped  update x.org: interrupted',
    );
  });

  test('after an interrupt the summary has one line for every change not started, with a hint to re-run', () => {
    const unstarted = Array.from({ length: 182 }, (_, i) => ({
      action: 'create' as const,
      domain: `s${i}.example`,
      id: null,
      outcome: 'skipped' as const,
      reason: 'not started: the run was interrupted',
      code: 'interrupted' as const,
    }));
    const applied = { action: 'update', domain: 'a.example', id: 1, outcome: 'applied' } as const;
    /** The summary lines of an interrupted apply of `changes`, the first of them applied. */
    const interruptedSummary = (changes: ChangeResult[], requests: number, elapsedMs: number) =>
      applyResultLines({
        changes,
        counts: { applied: 1, failed: 0, skipped: changes.length - 1, total: changes.length },
        interrupted: true,
        verification: { status: 'not_needed', divergences: [] },
        requests,
        elapsedMs,
      }).map((line) => line.text);
    const lines = interruptedSummary(
      [
        applied,
        { action: 'update', domain: 'b.example', id: 2, outcome: 'skipped', reason: 'already applied' },
        ...unstarted,
      ],
      3,
      2_000,
    );
    expect(lines).toEqual([
      'applied 1 of 184 changes; 183 skipped (3 requests, 2s)',
      'interrupted: 182 changes not started (s0.example, s1.example, s2.example and 179 more); run the same command again to finish them',
      'skipped:',
      '  b.example (update): already applied',
    ]);
    expect(interruptedSummary([applied], 1, 1_000)[0]).toBe('applied 1 of 1 change (1 request, 1s)');
    expect(interruptedSummary([applied], 2, 1_000)).toEqual([
      'applied 1 of 1 change (2 requests, 1s)',
      'interrupted after every change had started: the read-back was skipped; run plan to see the result',
    ]);
  });
});
