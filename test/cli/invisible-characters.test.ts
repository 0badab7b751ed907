/**
 * Issue 23 item 15: a live domain `\u202Eelpmaxe.live` (RIGHT-TO-LEFT OVERRIDE)
 * printed raw shows as `evil.example`. Invisible format characters (Unicode
 * category Cf: bidi controls, zero-width spaces, the BOM) are shown as
 * `\uXXXX` like control bytes are shown as `\xNN`, in every output format; the
 * JSON documents keep the real value (it parses back unchanged) but write
 * those characters as JSON escapes, so the raw text is safe in a terminal too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { insertWebsites } from '../helpers/stored-website.js';
import { config, useCliFixture } from './apply-support.js';

const RLO = '\u202Eelpmaxe.live';
const ISOLATE = 'bank\u2066.example\u2069';
/** A live setting (a domain with a zero-width space is matched by its canonical form, which drops it). */
const ZERO_WIDTH = 'utm\u200Bsource';
/** Cf and the other characters that must never reach the output raw (C0 but tab and newline, DEL, C1, line separators). */
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u;

describe('invisible characters in live domains', () => {
  const cli = useCliFixture({
    config: config({ 'keep.example': '' }, 'prune: true\nlimits:\n  max_deletes: 10\n  max_change_percent: 100\n'),
    before: async ({ server }) => {
      await insertWebsites(server.server, server.key, ['keep.example'], { excludeParams: ZERO_WIDTH });
      await insertWebsites(server.server, server.key, [RLO, ISOLATE]);
    },
  });

  it.each(['human', 'markdown'])('are shown as \\uXXXX in the %s plan', async (format) => {
    const run = await cli.ws.run(['plan', '--format', format]);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out + run.err).not.toMatch(INVISIBLE);
    // Markdown writes a backslash outside code as `\\`, which it renders as one.
    const shown = format === 'markdown' ? run.out.replaceAll('\\\\', '\\') : run.out;
    expect(shown).toContain('\\u202Eelpmaxe.live');
    expect(shown).toContain('utm\\u200Bsource');
    expect(shown).toContain('bank\\u2066.example\\u2069');
  });

  it('are JSON escapes in the JSON plan, which parses back to the real domains', async () => {
    const run = await cli.ws.run(['plan', '--format', 'json']);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).not.toMatch(INVISIBLE);
    expect(run.out).toContain('"\\u202eelpmaxe.live"');
    expect(run.out).toContain('"utm\\u200bsource"');
    const domains = JSON.parse(run.out).changes.map((change: { domain: string }) => change.domain);
    expect(domains).toEqual(expect.arrayContaining([RLO, ISOLATE]));
    expect(JSON.stringify(JSON.parse(run.out))).toContain(ZERO_WIDTH);
  });

  it('are JSON escapes in the saved plan, which applies', async () => {
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const text = readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8');
    expect(text).not.toMatch(INVISIBLE);
    expect(text).toContain('"\\u202eelpmaxe.live"');
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('applied 3 of 3 changes');
  });

  it('are escaped in what apply prints, as text and as JSON', async () => {
    const text = await cli.ws.run(['apply', '--auto-approve']);
    expect(text.out + text.err).not.toMatch(INVISIBLE);
    expect(text.out + text.err).toContain('\\u202Eelpmaxe.live');
    await insertWebsites(cli.server.server, cli.server.key, [RLO]);
    const json = await cli.ws.run(['apply', '--auto-approve', '--format', 'json']);
    expect(json.out + json.err).not.toMatch(INVISIBLE);
    expect(json.out).toContain('\\u202eelpmaxe.live');
    expect(JSON.stringify(JSON.parse(json.out))).toContain(RLO);
  });
});

describe('invisible characters in export', () => {
  const cli = useCliFixture({
    before: async ({ server }) => {
      await insertWebsites(server.server, server.key, ['keep.example'], { excludeParams: ZERO_WIDTH });
      await insertWebsites(server.server, server.key, [RLO]);
    },
  });

  it('are YAML escapes in a double-quoted scalar: the same values, safe to show', async () => {
    const run = await cli.ws.run(['export']);
    expect(run.code, run.err).toBe(0);
    expect(run.out + run.err).not.toMatch(INVISIBLE);
    // The domain is no valid new website, so export also says it manages it as the service holds it.
    expect(run.out).toMatch(/^ {2}- domain: "\\u202eelpmaxe\.live" # not a valid domain for a new website/m);
    expect(run.out).toContain('exclude_params: ["utm\\u200bsource"]\n');
    const read = parse(run.out) as { websites: { domain: string; exclude_params?: string[] }[] };
    expect(read.websites).toContainEqual({ domain: RLO });
    expect(read.websites).toContainEqual({ domain: 'keep.example', exclude_params: [ZERO_WIDTH] });
  });
});

describe('invisible characters in notices', () => {
  const cli = useCliFixture({
    config: config({ 'keep.example': '' }),
    before: async ({ server }) => {
      await insertWebsites(server.server, server.key, ['keep.example']);
      await insertWebsites(server.server, server.key, [RLO], { privacy: 7 });
    },
  });

  it('a warning about a live value shows them as \\uXXXX', async () => {
    const run = await cli.ws.run(['plan', '--log-level', 'debug']);
    expect(run.err).not.toMatch(INVISIBLE);
    expect(run.err).toContain('warn: website \\u202Eelpmaxe.live (2): privacy 7 cannot be read');
  });
});

// Issue 33 item 3: the acknowledgement block of the Markdown plan (the lines a reviewer copies) printed
// domains raw; and a live domain whose canonical form drops characters (a zero-width space, a BOM, a soft
// hyphen) was shown as another real domain. Each line now escapes, and names the record's own spelling.
describe('what a reviewer reads names the record it acts on', () => {
  const ZWSP = 'a\u200bb.example';
  const BOM = '\ufeffbom.example';
  const SHY = 'soft\u00adhyphen.example';
  const cli = useCliFixture({
    config: config(
      { 'ab.example': '    privacy: public\n' },
      'prune: true\nlimits:\n  max_deletes: 1\n  max_change_percent: 100\n',
    ),
    before: async ({ server }) => {
      await insertWebsites(server.server, server.key, [ZWSP, BOM, SHY, RLO]);
    },
  });

  it('escapes the acknowledgement lines of the Markdown plan', async () => {
    const run = await cli.ws.run(['plan', '--format', 'markdown']);
    expect(run.code, run.err).toBe(3);
    expect(run.out + run.err).not.toMatch(INVISIBLE);
    const block = run.out.slice(run.out.indexOf('```text'));
    expect(block).toContain('sitesync-acknowledge: --allow-delete \\u202Eelpmaxe.live\n');
    expect(block).toContain('sitesync-acknowledge: --allow-delete bom.example\n');
  });

  it.each(['human', 'markdown'])(
    'shows the stored spelling beside the canonical domain in the %s plan',
    async (format) => {
      const run = await cli.ws.run(['plan', '--format', format]);
      const shown = format === 'markdown' ? run.out.replaceAll('\\\\', '\\').replaceAll('&quot;', '"') : run.out;
      expect(shown).toMatch(/ab\.example \(id \d+, stored as "a\\u200Bb\.example"\) will be updated/);
      expect(shown).toMatch(/DELETE bom\.example \(id \d+, stored as "\\uFEFFbom\.example"\)/);
      expect(shown).toMatch(/DELETE softhyphen\.example \(id \d+, stored as "soft\\xADhyphen\.example"\)/);
      expect(shown).not.toMatch(/DELETE \\u202Eelpmaxe\.live \(id \d+, stored/); // its canonical form is its spelling
    },
  );

  it('gives the stored spelling in the JSON plan', async () => {
    const run = await cli.ws.run(['plan', '--format', 'json']);
    const changes: { domain: string; stored?: string }[] = JSON.parse(run.out).changes;
    expect(changes.map(({ domain, stored }) => [domain, stored]).sort()).toEqual([
      ['ab.example', ZWSP],
      ['bom.example', BOM],
      ['softhyphen.example', SHY],
      [RLO, undefined],
    ]);
  });
});
