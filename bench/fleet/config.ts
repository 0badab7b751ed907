/**
 * websites.yaml for a simulated fleet: one target per installation, each
 * with its own file listing its first `sites` websites and its key in a
 * variable of its own (SITESYNC_KEY_<index>); returns those variables and
 * SITESYNC_ALLOWED_ORIGINS pinning every installation's origin (a key goes
 * only where the environment allows: docs/workflows.md, "Threat model").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Fleet } from './simulator.js';

export function fleetConfig(fleet: Fleet, dir: string, sites: number): Record<string, string> {
  const env: Record<string, string> = {
    SITESYNC_ALLOWED_ORIGINS: fleet.installations.map((installation) => installation.url).join(','),
  };
  const declared: string[] = [];
  for (const installation of fleet.installations) {
    const name = `t${installation.index}`;
    env[`SITESYNC_KEY_${installation.index}`] = installation.key;
    declared.push(
      `  - { name: ${name}, url: "${installation.url}", key_env: SITESYNC_KEY_${installation.index}, files: [${name}.yaml] }`,
    );
    const domains = Array.from({ length: sites }, (_, site) => `  - domain: ${fleet.domain(installation.index, site)}`);
    writeFileSync(join(dir, `${name}.yaml`), `version: 1\nwebsites:\n${domains.join('\n')}\n`);
  }
  writeFileSync(
    join(dir, 'websites.yaml'),
    `version: 1\ndefaults:\n  privacy: private\ntargets:\n${declared.join('\n')}\n`,
  );
  return env;
}
