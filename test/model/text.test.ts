/** Issue 23 item 15: invisible format characters (Cf) are shown like control bytes, in text, JSON and YAML. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { escapeInvisible, jsonDocument, printable } from '../../src/model/text.js';

// RLO, zero-width space, LRI/PDI, BOM, soft hyphen, a tag character (beyond the BMP), the line separator, ESC, C1 CSI.
const HOSTILE = '\u202Ea\u200Bb\u2066c\u2069\uFEFFd\u00ADe\u{E0041}f\u2028g\u001bh\u009bi';

describe('printable', () => {
  it('shows every control and invisible format character, and nothing else', () => {
    expect(printable(HOSTILE)).toBe('\\u202Ea\\u200Bb\\u2066c\\u2069\\uFEFFd\\xADe\\u{E0041}f\\u2028g\\x1Bh\\x9Bi');
    expect(printable('münchen.example, 東京.jp, emoji 😀')).toBe('münchen.example, 東京.jp, emoji 😀');
  });
});

describe('jsonDocument and escapeInvisible', () => {
  it('write JSON that parses back to the same value and holds no raw invisible character', () => {
    const text = jsonDocument({ domain: HOSTILE, other: 'münchen 😀' });
    expect(text).not.toMatch(/[\u007f-\u009f\p{Cf}\u2028\u2029]/u);
    expect(text).toContain('"\\u202ea\\u200bb');
    expect(JSON.parse(text)).toEqual({ domain: HOSTILE, other: 'münchen 😀' });
  });

  it('write double-quoted YAML escapes that parse back to the same value', () => {
    const yaml = escapeInvisible(`domain: ${JSON.stringify(HOSTILE)}\n`, 'yaml');
    expect(yaml).toContain('\\U000e0041');
    expect(yaml).not.toMatch(/[\u007f-\u009f\p{Cf}\u2028\u2029]/u);
    expect(parse(yaml)).toEqual({ domain: HOSTILE });
  });
});
