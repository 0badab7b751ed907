/**
 * Files parsed once for many loads (config/parsed.ts): watch loads each target
 * from the root files parsed without their `targets:`. A policy naming a target
 * is checked where the root loads, and the per-target load stays on the fast
 * form of the files instead of loading every text (all targets included) again.
 */
import { describe, expect, it } from 'vitest';
import { buildState } from '../../src/config/build.js';
import { parseConfigFile } from '../../src/config/parsed.js';

const ROOT = `version: 1
targets:
  - name: prod
    url: https://prod.example
    key_env: SITESYNC_PROD_KEY
policies:
  - name: prod-private
    match: { targets: [prod] }
    rule: site.privacy == "private"
    message: production sites are private
websites:
  - domain: a.example
`;

describe('a root file parsed without its targets', () => {
  const parsed = parseConfigFile(ROOT, 'websites.yaml', ['targets']);

  it('is read the fast way and keeps its policies', () => {
    expect(parsed.quick?.config).not.toHaveProperty('targets');
    expect(parsed.quick?.config).toHaveProperty('policies');
  });

  it('builds without a problem when the targets are known omitted; the policy keeps the names it matches', () => {
    const built = buildState([parsed.quick!], {}, { secrets: 'check', targetsOmitted: true });
    expect(built.problems).toEqual([]);
    expect(built.state?.policies?.[0]?.match.targets).toEqual(['prod']);
  });

  it('is refused as naming an undeclared target when nobody says the targets were left out', () => {
    const built = buildState([parsed.quick!], {}, { secrets: 'check' });
    expect(built.problems.map((problem) => problem.message)).toEqual([
      'names target "prod", but the configuration declares no targets',
    ]);
  });
});
