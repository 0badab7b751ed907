// The count behind the client's bounded parse (src/api/json-shape.ts): depth and values as the bytes
// arrive, whatever the chunk boundaries; brackets and escaped quotes inside strings never count.
import { describe, expect, it } from 'vitest';
import { type JsonExcess, JsonShape, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/api/json-shape.js';

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** What the count says of `text` cut in two at `cut` (bytes). */
function shapeOf(text: string, cut: number): { excess: JsonExcess | undefined; isJson: boolean | undefined } {
  const bytes = Buffer.from(text);
  const shape = new JsonShape();
  const excess = shape.feed(bytes.subarray(0, cut)) ?? shape.feed(bytes.subarray(cut));
  return { excess, isJson: shape.isJson };
}

describe('JsonShape', () => {
  it.each<[string, string, JsonExcess | undefined]>([
    ['at the depth limit', deep(MAX_JSON_DEPTH), undefined],
    ['one level past it', deep(MAX_JSON_DEPTH + 1), 'too_deep'],
    ['brackets inside a string', `["${'['.repeat(100)}"]`, undefined],
    ['an escaped quote does not end a string', `["\\"${'{'.repeat(100)}"]`, undefined],
    ['an escaped backslash does end it', `["\\\\",${deep(MAX_JSON_DEPTH)}]`, 'too_deep'],
    ['three backslashes and a quote do not', `["\\\\\\"${'['.repeat(40)}"]`, undefined],
    ['closing brackets bring the depth down', `[${deep(MAX_JSON_DEPTH - 1).repeat(3)}]`, undefined],
    ['UTF-8 text around brackets', `{"é":"€[[[","ü":[${deep(5)}]}`, undefined],
  ])('%s', (_name, text, expected) => {
    for (let cut = 0; cut <= Buffer.byteLength(text); cut++)
      expect(shapeOf(text, cut).excess, `cut ${cut}`).toBe(expected);
  });

  it(`counts objects, arrays and commas up to ${MAX_JSON_VALUES}`, () => {
    const at = `[${'0,'.repeat(MAX_JSON_VALUES - 1)}0]`;
    expect(shapeOf(at, 7).excess).toBeUndefined();
    expect(shapeOf(`[${'0,'.repeat(MAX_JSON_VALUES)}0]`, 7).excess).toBe('too_many_values');
    expect(shapeOf(`[${'{},'.repeat(MAX_JSON_VALUES / 2)}{}]`, 3).excess).toBe('too_many_values');
  });

  it('counts only a body that starts with { or [ (after spaces); an HTML page is not JSON', () => {
    expect(shapeOf(`  \n${deep(40)}`, 2)).toEqual({ excess: 'too_deep', isJson: true });
    expect(shapeOf(`<html>${'['.repeat(40)}`, 3)).toEqual({ excess: undefined, isJson: false });
    expect(shapeOf(`"${'['.repeat(40)}"`, 0)).toEqual({ excess: undefined, isJson: false });
    expect(shapeOf('   ', 1)).toEqual({ excess: undefined, isJson: undefined });
  });
});
