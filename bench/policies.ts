/**
 * Policies benchmark (`npx tsx bench/policies.ts`, part of `npm run bench`):
 * the five rules of examples/policies/ compiled and evaluated over a plan of
 * 10,000 configured websites (100 changes), against the plan alone, in the
 * same process: the first (cold) round and the median of the rest.
 */
import { readFileSync } from 'node:fs';
import { loadConfigText } from '../src/config/index.js';
import type { LiveWebsite } from '../src/model/website.js';
import { plan, policyFromConfig } from '../src/plan/index.js';
import { compilePolicies, evaluatePolicies, policiesDigest } from '../src/plan/policies/index.js';
import { median } from './support.js';

const SITES = 10_000;
const ROUNDS = 9;

const rules = readFileSync(new URL('../examples/policies/policies.yaml', import.meta.url), 'utf8').replace(
  /^version: 1\n/m,
  '',
);
const lines = ['version: 1', rules, 'defaults:', '  exclude_params: [fbclid, gclid]', 'websites:'];
for (let i = 0; i < SITES; i++)
  lines.push(`  - domain: site-${i}.acme.example${i % 100 === 0 ? '\n    email: true' : ''}`);
const { state, errors } = loadConfigText(lines.join('\n'), 'websites.yaml', {});
if (state === undefined) throw new Error(`invalid benchmark configuration: ${errors[0]?.message}`);
const live: LiveWebsite[] = state.websites.map((site, i) => ({
  id: i + 1,
  domain: site.domain,
  settings: { ...site.settings, email: false },
  hasPassword: false,
}));
const policy = policyFromConfig(state.policy, { only: [], skip: [], syncWriteOnly: false });

const planTimes: number[] = [];
const policyTimes: number[] = [];
let violations = 0;
for (let round = 0; round < ROUNDS; round++) {
  const start = performance.now();
  const result = plan(state.websites, live, policy);
  const planned = performance.now();
  const { policies } = compilePolicies(state.policies ?? []);
  violations = evaluatePolicies(policies, policiesDigest(state.policies ?? []), {
    websites: state.websites,
    plan: result,
  }).violations.length;
  policyTimes.push(performance.now() - planned);
  planTimes.push(planned - start);
}
const rest = (times: number[]) => median(times.slice(1)).toFixed(0);
console.log(
  `| 5 policies over ${SITES.toLocaleString('en')} websites (${violations} violations) | plan: first ${planTimes[0]!.toFixed(0)} ms, median ${rest(planTimes)} ms | policies: first ${policyTimes[0]!.toFixed(0)} ms, median ${rest(policyTimes)} ms |`,
);
