/**
 * The shape of an answer's JSON, read as its bytes arrive: how deep it nests
 * and how many values it holds, so that a hostile answer (`{"data":[[[[…` a
 * million deep, or a million empty objects) is refused at the first byte past
 * a bound, before the rest is read and long before `JSON.parse` would spend
 * seconds and gigabytes on it (issue 33). A body that passed is bounded for
 * the parse too. It only counts: syntax is `JSON.parse`'s to judge. A body
 * that does not start with `{` or `[` (an HTML page, a scalar) is not counted.
 */

/** A website list nests 4 deep (`{"data":[{"exclude_ips":[…]}]}` at most); an error body 3. */
export const MAX_JSON_DEPTH = 32;
/**
 * Values counted as objects, arrays and commas (each member or element after
 * the first brings one): a page of 100 websites holds about 2,000, a listing
 * page of 10,000 sites (a server ignoring `per_page`) about 200,000. At the
 * bound, the parsed answer takes tens of megabytes at most.
 */
export const MAX_JSON_VALUES = 1_000_000;

export type JsonExcess = 'too_deep' | 'too_many_values';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** One answer's count. UTF-8 continuation bytes are ≥ 0x80, so the ASCII bytes counted are always JSON's own. */
export class JsonShape {
  #counting: boolean | undefined;
  #depth = 0;
  #values = 0;
  #inString = false;
  #escaped = false;

  /** Whether the body is counted (it starts with `{` or `[`): JSON worth parsing; undefined while only spaces came. */
  get isJson(): boolean | undefined {
    return this.#counting;
  }

  /** Counts the next bytes of the body: the bound they pass, if any. */
  feed(chunk: Uint8Array): JsonExcess | undefined {
    let at = 0;
    if (this.#counting === undefined) {
      while (at < chunk.length && isSpace(chunk[at]!)) at++;
      if (at === chunk.length) return undefined;
      this.#counting = chunk[at] === OPEN_BRACE || chunk[at] === OPEN_BRACKET;
    }
    if (!this.#counting) return undefined;
    for (; at < chunk.length; at++) {
      if (this.#inString) {
        at = this.#skipString(chunk, at);
        continue;
      }
      const byte = chunk[at]!;
      if (byte === QUOTE) this.#inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (++this.#depth > MAX_JSON_DEPTH) return 'too_deep';
        if (++this.#values > MAX_JSON_VALUES) return 'too_many_values';
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) this.#depth--;
      else if (byte === COMMA && ++this.#values > MAX_JSON_VALUES) return 'too_many_values';
    }
    return undefined;
  }

  /**
   * Inside a string from `at`: where it ends (its closing quote), or the
   * chunk's last byte when it goes on. The quote is found by `indexOf`, not
   * byte by byte: a long string (a list field of 65,535 bytes) costs little.
   */
  #skipString(chunk: Uint8Array, at: number): number {
    let from = at;
    if (this.#escaped) {
      this.#escaped = false;
      from++;
    }
    for (;;) {
      const quote = chunk.indexOf(QUOTE, from);
      const end = quote < 0 ? chunk.length : quote;
      let slashes = 0;
      while (end - slashes > from && chunk[end - slashes - 1] === BACKSLASH) slashes++;
      if (quote < 0) {
        this.#escaped = slashes % 2 === 1;
        return chunk.length - 1;
      }
      if (slashes % 2 === 0) {
        this.#inString = false;
        return quote;
      }
      from = quote + 1;
    }
  }
}
