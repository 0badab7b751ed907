#!/usr/bin/env node
// `npm run test:mutation`: Stryker over each part in turn (stryker.config.mjs, vitest.mutation.config.ts),
// a part at a time so each stays one job's length; ends with each part's wall time and exit status.
//   node scripts/mutation.mjs                  every part: core, engine, watch, auth
//   node scripts/mutation.mjs engine watch     those parts
// Arguments starting with - go to Stryker (--concurrency 1, --mutate src/engine/baseline.ts).
import { spawnSync } from 'node:child_process';

const PARTS = ['core', 'engine', 'watch', 'auth'];
const args = process.argv.slice(2);
const named = args.filter((arg) => PARTS.includes(arg));
const strykerArgs = args.filter((arg) => !PARTS.includes(arg));
const unknown = strykerArgs.find((arg, index) => !arg.startsWith('-') && !strykerArgs[index - 1]?.startsWith('-'));
if (unknown !== undefined) {
  console.error(`no such part: ${unknown} (parts: ${PARTS.join(', ')})`);
  process.exit(2);
}

const results = [];
for (const part of named.length > 0 ? named : PARTS) {
  const started = Date.now();
  const run = spawnSync('npx', ['stryker', 'run', ...strykerArgs], {
    stdio: 'inherit',
    env: { ...process.env, SITESYNC_MUTATION_PART: part },
  });
  results.push({ part, status: run.status ?? 1, minutes: ((Date.now() - started) / 60_000).toFixed(1) });
}
for (const { part, status, minutes } of results)
  console.log(`${part}: ${status === 0 ? 'passed' : `failed (exit ${status})`} in ${minutes} min`);
process.exit(results.some(({ status }) => status !== 0) ? 1 : 0);
