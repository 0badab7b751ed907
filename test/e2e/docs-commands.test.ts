// Every `npx … sitesync` a user can copy from the README, docs/ or examples/
// runs the locally installed sitesync (issue 16 item 9): a bare `npx sitesync`
// with no local install fetches whatever package of that name the registry has.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** `npx` (or `npm exec`) with its flags, running the package `sitesync`. */
const NPX_SITESYNC = /\b(?:npx|npm exec)((?:[ \t]+-[^\s]+)*)[ \t]+sitesync(?:@\S*)?(?=[\s`'"]|$)/gm;

function unpinnedNpx(text: string): string[] {
  return [...text.matchAll(NPX_SITESYNC)]
    .filter((match) => !(match[1] ?? '').split(/\s+/).includes('--no-install'))
    .map((match) => match[0]);
}

test('the pattern tells a local run from a registry fetch', () => {
  expect(unpinnedNpx('npx sitesync plan\nnpx -y sitesync@latest plan\nnpm exec sitesync -- plan')).toEqual([
    'npx sitesync',
    'npx -y sitesync@latest',
    'npm exec sitesync',
  ]);
  expect(
    unpinnedNpx('npx --no-install sitesync plan\nnpx tsx bench/cli.ts # sitesync\n`npx --no-install sitesync`'),
  ).toEqual([]);
});

test('README, docs/ and examples/ use `npx --no-install sitesync` everywhere', () => {
  const files = [join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'docs')), ...filesUnder(join(ROOT, 'examples'))];
  const found = files.flatMap((file) =>
    unpinnedNpx(readFileSync(file, 'utf8')).map((command) => `${relative(ROOT, file)}: ${command}`),
  );
  expect(files.length).toBeGreaterThan(20);
  expect(found).toEqual([]);
});
