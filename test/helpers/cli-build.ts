/**
 * Vitest global setup: a directory for the run's one build of the CLI
 * (test/e2e/built-cli.ts builds into it when a test first asks, from the
 * sources as they are at that moment), removed after the run. It lies in
 * node_modules/.cache so that the build's imports resolve to this
 * checkout's packages, and dist/ is left alone.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { isAlive } from '../../src/cli/plan-lock.js';
import { perRun } from './per-run.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run builds the CLI (built-cli.ts). */
    cliBuildDir: string;
  }
}

const CACHE = resolve(import.meta.dirname, '../../node_modules/.cache');
const PREFIX = 'sitesync-cli-';

/** Builds of runs that ended without their teardown (killed): their process is gone. */
function removeOrphans(): void {
  let names: string[] = [];
  try {
    names = readdirSync(CACHE).filter((name) => name.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(PREFIX.length));
    if (isAlive(pid)) continue;
    rmSync(join(CACHE, name), { recursive: true, force: true });
  }
}

export default function setup(project: TestProject): () => void {
  const run = perRun(
    'cli-build',
    () => {
      removeOrphans();
      return join(CACHE, `${PREFIX}${process.pid}`);
    },
    (dir) => rmSync(dir, { recursive: true, force: true }),
  );
  project.provide('cliBuildDir', run.value);
  return run.release;
}
