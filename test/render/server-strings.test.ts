/**
 * Issue 16 item 15: strings from the service reach a PR comment and a terminal.
 * Markdown/HTML in a domain must not break out of the `[!CAUTION]` block or the
 * <details> sections, and control bytes (ESC) never reach the terminal raw.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/planner.js';
import { renderHuman } from '../../src/render/human.js';
import { renderMarkdown } from '../../src/render/markdown.js';
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
