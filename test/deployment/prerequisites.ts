/**
 * Vitest global setup of the deployment suite (vitest.deployment.config.ts): before any test, checks
 * what the suite needs beyond `npm test`'s machine (scripts/deployment-prerequisites.sh) and stops the
 * run with its one line (what to install) when something is missing. Never a silent skip.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function setup(): void {
  const check = spawnSync(resolve(import.meta.dirname, '../../scripts/deployment-prerequisites.sh'), {
    encoding: 'utf8',
  });
  if (check.status !== 0) throw new Error(check.stderr.trim() || 'the deployment prerequisites check failed');
}
