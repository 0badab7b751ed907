#!/usr/bin/env node
// A part's score per file and the mutants no test killed, from a finished run's report or, for a run
// stopped before its end, from the results the event recorder wrote as each mutant was tested.
// (A finished report carries the source it mutated; for a stopped run the lines shown are the working tree's.)
//   node scripts/mutation-survivors.mjs engine            reports/mutation/engine/mutation.json, else its events
//   node scripts/mutation-survivors.mjs engine --timeouts the timed-out mutants too
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [part = 'core', ...flags] = process.argv.slice(2);
const folder = join('reports', 'mutation', part);
const read = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** file → its mutants ({ status, location, mutatorName, replacement }) and its source, when known. */
function results() {
  const report = join(folder, 'mutation.json');
  const events = join(folder, 'events');
  const finished =
    existsSync(report) &&
    (!existsSync(events) || readdirSync(events).some((name) => name.endsWith('-onMutationTestReportReady.json')));
  if (finished) return { stopped: false, files: read(report).files };
  if (!existsSync(events))
    throw new Error(`${folder}: no report and no events (run \`SITESYNC_MUTATION_PART=${part} npx stryker run\`)`);
  const files = {};
  for (const name of readdirSync(events)
    .filter((name) => name.endsWith('-onMutantTested.json'))
    .sort()) {
    const mutant = read(join(events, name));
    const file = relative(process.cwd(), mutant.fileName);
    files[file] ??= { mutants: [], source: existsSync(file) ? readFileSync(file, 'utf8') : '' };
    files[file].mutants.push(mutant);
  }
  return { stopped: true, files };
}

const shown = new Set(['Survived', 'NoCoverage', ...(flags.includes('--timeouts') ? ['Timeout'] : [])]);
const score = (counts) => {
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const valid = detected + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  return valid === 0 ? 'n/a' : `${((100 * detected) / valid).toFixed(1)}%`;
};
const { stopped, files } = results();
const total = {};
for (const [file, { mutants, source }] of Object.entries(files).sort()) {
  const counts = {};
  for (const { status } of mutants) {
    counts[status] = (counts[status] ?? 0) + 1;
    total[status] = (total[status] ?? 0) + 1;
  }
  console.log(`${file}: ${score(counts)} ${JSON.stringify(counts)}`);
  const lines = source.split('\n');
  for (const { status, location, mutatorName, replacement } of mutants.filter(({ status }) => shown.has(status))) {
    const { line, column } = location.start;
    const code = (lines[line - 1] ?? '').trim().slice(0, 100);
    console.log(
      `  ${status} ${line}:${column} ${mutatorName}: ${code}  =>  ${JSON.stringify(replacement ?? '').slice(0, 80)}`,
    );
  }
}
console.log(
  `${stopped ? 'stopped run, mutants tested so far' : 'whole run'}: ${score(total)} ${JSON.stringify(total)}`,
);
