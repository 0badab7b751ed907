/**
 * `npm run bench`: every benchmark, one after the other (they share two cores,
 * so never in parallel). Each prints its own table; figures go to docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const suites = [
  'config',
  'config-build',
  'client',
  'planner',
  'plan-render',
  'policies',
  'attribution',
  'apply',
  'cli',
  'targets',
];
const only = process.argv.slice(2);
let failed = 0;
for (const suite of suites) {
  if (only.length > 0 && !only.includes(suite)) continue;
  const file = `bench/${suite}.ts`;
  if (!existsSync(file)) continue;
  console.log(`\n## ${suite}\n`);
  const result = spawnSync('npx', ['tsx', file], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
