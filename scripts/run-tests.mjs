#!/usr/bin/env node
// Runs a vitest suite and ends with the one line CI reads: "N passed, N failed".
//   node scripts/run-tests.mjs                 the main suite (npm test)
//   node scripts/run-tests.mjs --deployment    the deployment suite (npm run test:deployment), which needs HAProxy
//   node scripts/run-tests.mjs --browser       the browser suite (npm run test:browser), which needs Chromium
// Other arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const args = process.argv.slice(2);
const deployment = args.includes('--deployment');
const browser = args.includes('--browser');
const vitestArgs = args.filter((arg) => arg !== '--deployment' && arg !== '--browser');
// Its global setup checks for Chromium and stops the run with what to install.
if (browser) vitestArgs.unshift('--config', 'vitest.browser.config.ts');
if (deployment) {
  // Its prerequisites first, in one line, before vitest starts anything.
  const check = spawnSync('scripts/deployment-prerequisites.sh', { stdio: 'inherit' });
  if (check.status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  vitestArgs.unshift('--config', 'vitest.deployment.config.ts');
}

const report = '.test-results.json';
// Written by the global teardown (test/helpers/temp-leaks.ts) when the run left sitesync-* entries in the temp directory.
const leaks = '.test-leaks.json';
rmSync(report, { force: true });
rmSync(leaks, { force: true });
const result = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs],
  { stdio: 'inherit' },
);
let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests;
  failed = json.numFailedTests + (json.numRuntimeErrorTestSuites ?? 0);
  for (const suite of json.testResults ?? []) {
    // A file that failed to load has no tests but is a failure.
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed = 1;
}
if (existsSync(leaks)) {
  const { tmpdir, left } = JSON.parse(readFileSync(leaks, 'utf8'));
  console.log(`left behind in ${tmpdir}: ${left.join(', ')}`);
  failed += 1;
}
if (result.status !== 0 && failed === 0) failed = 1;
if (!deployment && !browser)
  console.log(
    'Separate suites: npm run test:deployment (HAProxy in front of replicas), npm run test:browser (the status page in Chromium)',
  );
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
