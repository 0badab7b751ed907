/**
 * Temporary directories for tests, removed by the test run itself: one made
 * during a test (or its beforeEach) goes when that test finishes, one made in
 * beforeAll or at file level goes when the file finishes. The removal hooks
 * live in test/helpers/temp-cleanup.ts (a vitest setup file); the global
 * teardown (test/helpers/temp-leaks.ts) fails the run if anything named
 * `sitesync-*` is left in the temp directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeEach } from 'vitest';

/** Every temporary entry a test makes starts with this (the leak check counts them). */
export const TEMP_PREFIX = 'sitesync-';

const perTest: string[] = [];
const perFile: string[] = [];
let inTest = false;

/** A fresh empty directory `$TMPDIR/sitesync-<name>-XXXXXX`, removed after the test (or file). */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${name}-`));
  (inTest ? perTest : perFile).push(dir);
  return dir;
}

/** A fresh directory holding `files` (relative name → text or bytes; folders are made as needed). */
export function tempDirWith(name: string, files: Record<string, string | Uint8Array>): string {
  const dir = tempDir(name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  return dir;
}

/** A fresh directory for each test of the enclosing describe: call the returned function inside the test. */
export function useTempDir(name: string): () => string {
  let dir = '';
  beforeEach(() => {
    dir = tempDir(name);
  });
  return () => dir;
}

/** For the setup file: a test starts (directories made from now on belong to it). */
export function testStarted(): void {
  inTest = true;
}

/** For the setup file: removes the directories of the test that just finished. */
export function testFinished(): void {
  inTest = false;
  removeAll(perTest);
}

/** For the setup file: removes the directories made outside tests. */
export function fileFinished(): void {
  removeAll(perFile);
}

function removeAll(dirs: string[]): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
