/**
 * websites.yaml for a simulated fleet: one target per installation, each
 * with its own file listing its first `sites` websites and its key in a
 * variable of its own (KEY_<index>); returns those variables.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Fleet } from './simulator.js';

export function fleetConfig(fleet: Fleet, dir: string, sites: number): Record<string, string> {
  const env: Record<string, string> = {};
  const declared: string[] = [];
  for (const installation of fleet.installations) {
    const name = `t${installation.index}`;
    env[`KEY_${installation.index}`] = installation.key;
    declared.push(
      `  - { name: ${name}, url: "${installation.url}", key_env: KEY_${installation.index}, files: [${name}.yaml] }`,
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
