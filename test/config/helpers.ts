/** Small helpers for config tests: write files into a fresh temp directory and load them. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { formatProblem, type LoadResult, loadConfig } from '../../src/config/index.js';

/** The variables that the password references of examples/ need. */
export const EXAMPLE_ENV = {
  ACME_PARTNERS_STATS_PASSWORD: 'partners-example-pw',
  ORBIT_INVESTORS_STATS_PASSWORD: 'investors-example-pw',
};

/** Creates a temp directory holding `files` (name → text, or bytes); returns its path. */
export function tempConfigDir(files: Record<string, string | Uint8Array> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-config-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

export function loadText(text: string, env: Record<string, string | undefined> = {}): LoadResult & { lines: string[] } {
  const cwd = tempConfigDir({ 'websites.yaml': text });
  const result = loadConfig({ files: [], cwd, env });
  return { ...result, lines: [...result.errors, ...result.warnings].map(formatProblem) };
}
