// Quirks mode reads form bytes as UTF-8 and stores each byte outside a valid sequence as `?`, as
// MariaDB does with what PHP hands on (issue 24 item 10; the HTTP row is in quirks-v31-rows.ts).
import { describe, expect, it } from 'vitest';
import { utf8WithQuestionMarks } from '../../src/server/http/quirks-body.js';

describe('utf8WithQuestionMarks', () => {
  it.each([
    ['valid UTF-8, untouched', [0x62, 0xc3, 0xbc, 0x63, 0xf0, 0x9f, 0x98, 0x80], 'büc😀'],
    ['a Latin-1 byte', [0x62, 0xfc, 0x63], 'b?c'],
    ['a truncated sequence: each of its bytes', [0xe2, 0x82, 0x41], '??A'],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], '???'],
    ['an overlong form', [0xc0, 0xaf, 0xe0, 0x80, 0xaf], '?????'],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], '????'],
    ['a sequence cut off at the end', [0x41, 0xf0, 0x9f, 0x98], 'A???'],
  ])('%s', (_, bytes, text) => {
    expect(utf8WithQuestionMarks(Buffer.from(bytes))).toBe(text);
  });
});
