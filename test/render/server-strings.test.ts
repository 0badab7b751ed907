/**
 * Issue 16 item 15: strings from the service reach a PR comment and a terminal.
 * Markdown/HTML in a domain must not break out of the `[!CAUTION]` block or the
 * <details> sections, and control bytes (ESC) never reach the terminal raw.
 */
import { describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { reportError } from '../../src/cli/main.js';
import type { ApplyResult, ChangeResult } from '../../src/model/apply-result.js';
import { SitesyncError } from '../../src/model/errors.js';
import { plan } from '../../src/plan/planner.js';
import { applyResultLines, staleRefusalText } from '../../src/render/apply-result.js';
import { paint } from '../../src/render/colors.js';
import { renderHuman } from '../../src/render/human.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { changeLine } from '../../src/render/progress.js';
import { desired, live, policy } from '../plan/builders.js';

const HOSTILE = 'evil.example\n\n</details> [click](https://x.example) <img src=x onerror=alert(1)> **bold**';
const ESCAPE = 'esc.example\u001b[2J\u001b]0;pwned\u0007';

const hostilePlan = () =>
  plan(
    [desired('keep.example', { excludeParams: ['a'] })],
    [
      live(1, HOSTILE),
      live(2, ESCAPE),
      live(3, 'keep.example', { excludeParams: ['```\n</code></summary><img src=y>', 'b\u001b[31m'] }),
    ],
    policy({ prune: true }),
  );

describe('server strings in the Markdown plan', () => {
  it('stay inside the CAUTION block and show HTML and Markdown literally', () => {
    const text = renderMarkdown(hostilePlan());
    const lines = text.split('\n');
    const start = lines.indexOf('> [!CAUTION]');
    expect(start).toBeGreaterThanOrEqual(0);
    const block = lines.slice(start, lines.indexOf('', start));
    expect(block.length).toBeGreaterThanOrEqual(4);
    for (const line of block) expect(line.startsWith('> ')).toBe(true);
    expect(text).not.toContain('<img src=x'); // the domain's HTML; the one in a code fence is literal text
    expect(text).not.toContain('[click](');
    expect(text).toContain('&lt;img');
    expect(text.match(/<\/details>/g)).toHaveLength(text.match(/<details>/g)?.length ?? 0);
    expect(text).not.toContain('\u001b');
  });
});

describe('server strings in human output', () => {
  it('show control bytes as \\xNN, never raw', () => {
    const text = renderHuman(hostilePlan(), { color: false });
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('esc.example\\x1B[2j\\x1B]0;pwned\\x07');
  });
});

describe('server strings in apply results and progress (issue 16 item 15)', () => {
  const result: ApplyResult = {
    changes: [
      { action: 'update', domain: ESCAPE, id: 2, outcome: 'failed', reason: 'server said \u001b[31mno\u001b[0m' },
      { action: 'delete', domain: 'b.example\u009b2J', id: 3, outcome: 'skipped', reason: 'not started' },
    ],
    counts: { applied: 0, failed: 1, skipped: 1, total: 2 },
    interrupted: false,
    verification: {
      status: 'checked',
      divergences: [
        { domain: ESCAPE, kind: 'field', field: 'excludeParams', wanted: ['a'], actual: ['\u001b]0;x\u0007'] },
      ],
    },
    requests: 3,
    elapsedMs: 10,
  };
  const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

  it('the summary lines show control bytes as \\xNN', () => {
    const text = paint(applyResultLines(result), false);
    expect(text).not.toMatch(controls);
    expect(text).toContain('  esc.example\\x1B[2J\\x1B]0;pwned\\x07 (update): server said \\x1B[31mno\\x1B[0m');
    expect(text).toContain('b.example\\x9B2J');
    expect(text).toContain('\\x1B]0;x\\x07');
  });

  it('the progress line per change and the stale-plan refusal too', () => {
    const [failed] = result.changes;
    expect(changeLine(failed as ChangeResult)).toBe(
      'failed   update esc.example\\x1B[2J\\x1B]0;pwned\\x07: server said \\x1B[31mno\\x1B[0m',
    );
    const stale = staleRefusalText('plan.json', [{ domain: ESCAPE, kind: 'gone', moves: [] }], 'sitesync plan');
    expect(stale).not.toMatch(controls);
    expect(stale).toContain('  esc.example\\x1B[2J\\x1B]0;pwned\\x07: deleted since the plan was made');
  });
});

describe('server strings in error messages', () => {
  it('every line of a one-line error is printable', () => {
    let written = '';
    const io = { stderr: { write: (text: string) => (written += text) } } as unknown as Io;
    reportError(new SitesyncError('stale_plan', `plan.json is stale:\n  ${ESCAPE}: deleted`), io);
    expect(written).toBe('error: plan.json is stale:\n  esc.example\\x1B[2J\\x1B]0;pwned\\x07: deleted\n');
  });
});
