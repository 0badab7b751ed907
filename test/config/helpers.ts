/** Small helpers for config tests: load text without files, or write files into a temp directory. */
import { formatProblem, type LoadResult, loadConfigText } from '../../src/config/index.js';
import { tempDirWith } from '../helpers/temp.js';

/** The variables that the password references of examples/ need. */
export const EXAMPLE_ENV = {
  SITESYNC_ACME_PARTNERS_STATS_PASSWORD: 'partners-example-pw',
  SITESYNC_ORBIT_INVESTORS_STATS_PASSWORD: 'investors-example-pw',
};

/** A temp directory holding `files` (name → text, or bytes), removed after the test; returns its path. */
export function tempConfigDir(files: Record<string, string | Uint8Array> = {}): string {
  return tempDirWith('config', files);
}

/** Loads `text` as websites.yaml (no file written), with every problem formatted as `lines`. */
export function loadText(text: string, env: Record<string, string | undefined> = {}): LoadResult & { lines: string[] } {
  const result = loadConfigText(text, 'websites.yaml', env);
  return { ...result, lines: [...result.errors, ...result.warnings].map(formatProblem) };
}
