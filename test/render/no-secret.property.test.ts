import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { explain } from '../../src/plan/explain.js';
import { plan } from '../../src/plan/planner.js';
import { createSavedPlan, serializeSavedPlan } from '../../src/plan/saved-plan.js';
import { renderHuman } from '../../src/render/human.js';
import { renderJson } from '../../src/render/json.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { worldArb } from '../plan/arbitraries.js';
import { policy } from '../plan/builders.js';

describe('renderer properties', () => {
  test.prop([worldArb, fc.boolean()], { seed: 11, numRuns: 200 })(
    'no rendering, with or without colour or --explain, ever contains a password value',
    (world, syncWriteOnly) => {
      const thePolicy = policy({ ...world.policy, syncWriteOnly });
      const result = plan(world.desired, world.live, thePolicy);
      const explained = explain(world.desired, world.live, thePolicy);
      const outputs = [
        renderHuman(result, { color: false, explain: explained }),
        renderHuman(result, { color: true }),
        renderJson(result, { explain: explained }),
        renderMarkdown(result),
        serializeSavedPlan(
          createSavedPlan({
            target: 'https://a.example',
            configDigest: 'd',
            keyId: '0123456789abcdef',
            policy: thePolicy,
            plan: result,
            live: world.live,
          }),
        ),
      ];
      const secrets = world.desired.flatMap((site) => (site.password === undefined ? [] : [site.password.reveal()]));
      for (const output of outputs) for (const secret of secrets) expect(output).not.toContain(secret);
    },
  );
});
