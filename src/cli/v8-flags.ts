/**
 * V8 settings for the commands that run once and exit (plan, apply,
 * validate, export...); `serve` and `watch` run for long and keep V8's
 * defaults. Set at start (bin.ts), before what they tune happens for the
 * first time. Measured in docs/benchmarks.md (`plan` of 10,000 sites).
 */
import { setFlagsFromString } from 'node:v8';

export const ONE_SHOT_FLAGS = [
  // The data a one-shot command builds (configuration, listing, plan) lives
  // until it exits: every young-generation collection finds it alive, so V8
  // would double its young generation up to 32 MB, which only raises the
  // peak RSS. The growth factor is read at each growth: set before any, it
  // keeps the initial size.
  '--semi-space-growth-factor=1',
  // undici parses HTTP with llhttp compiled to WebAssembly; V8's optimizing
  // tier compiles its parser function in ~35 MB of temporary memory and a
  // core's worth of time, for a few MB of responses that the baseline
  // compiler's code parses as well: peak RSS -20 MB, CPU -100 ms.
  '--no-wasm-tier-up',
  '--no-wasm-dynamic-tiering',
] as const;

const LONG_RUNNING = ['serve', 'watch'];

/** Applies ONE_SHOT_FLAGS unless `command` runs for long. */
export function tuneV8For(command: string | undefined): void {
  if (LONG_RUNNING.includes(command ?? '')) return;
  for (const flag of ONE_SHOT_FLAGS) setFlagsFromString(flag);
}
