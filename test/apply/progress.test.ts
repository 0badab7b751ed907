import { describe, expect, test } from 'vitest';
import { progressReporter } from '../../src/cli/progress.js';
import { changeLine, formatDuration, liveLine } from '../../src/render/progress.js';

function stream(isTTY: boolean) {
  let text = '';
  const write = (chunk: string): void => {
    text += chunk;
  };
  return { write, isTTY, text: () => text };
}

describe('progress', () => {
  test('off a terminal: one line per finished change', () => {
    const out = stream(false);
    const reporter = progressReporter(out);
    reporter.onProgress({
      done: 1,
      total: 2,
      result: { action: 'delete', domain: 'a.com', id: 3, outcome: 'applied' },
    });
    reporter.onProgress({
      done: 2,
      total: 2,
      result: { action: 'create', domain: 'b.com', id: null, outcome: 'failed', reason: 'POST /api/v1/websites → 500' },
    });
    reporter.end();
    expect(out.text()).toBe('applied  delete a.com\nfailed   create b.com: POST /api/v1/websites → 500\n');
  });

  test('on a terminal: one line redrawn in place with rate and time left, cleared at the end', () => {
    let now = 0;
    const out = stream(true);
    const reporter = progressReporter(out, () => now);
    now = 30_000;
    reporter.onProgress({
      done: 15,
      total: 60,
      result: { action: 'update', domain: 'a.com', id: 1, outcome: 'applied' },
    });
    reporter.end();
    expect(out.text()).toBe('\r\x1b[Kapplying 15/60 · 30.0 changes/min · about 1m 30s left\r\x1b[K');
  });

  test('live line and durations', () => {
    expect(liveLine({ done: 0, total: 10 }, 0)).toBe('applying 0/10 · 0.0 changes/min');
    expect(liveLine({ done: 10, total: 10 }, 1_000)).toBe('applying 10/10 · 600.0 changes/min');
    expect(formatDuration(59_400)).toBe('59s');
    expect(formatDuration(3_600_000 + 120_000)).toBe('1h 2m');
    expect(changeLine({ action: 'update', domain: 'x.org', id: 1, outcome: 'skipped', reason: 'interrupted' })).toBe(
      'skipped  update x.org: interrupted',
    );
  });
});
