// On merge: the plan file reviewed in the pull request that produced COMMIT,
// taken from that pull request's sitesync comment, only if it was planned at
// the pull request's head commit (what was reviewed and merged), and the
// acknowledgements of its description, one argument per line.
// Usage: node reviewed-plan.mjs COMMIT PLAN_OUT ACKNOWLEDGEMENTS_OUT
import { writeFileSync } from 'node:fs';
import { parseAcknowledgements, REJECTED_HINT } from '../lib/acknowledgements.mjs';
import { extract, MARKER } from '../lib/plan-file.mjs';
import { github, ownComment } from './api.mjs';

const [commit, planOut, acknowledgementsOut] = process.argv.slice(2);
const fail = (message) => {
  console.log(`::error::${message}`);
  process.exit(1);
};

const pulls = await github('GET', `/commits/${commit}/pulls`);
const pull = pulls.find((candidate) => candidate.merged_at) ?? pulls[0];
if (!pull) fail(`${commit} came from no pull request: no reviewed plan to apply (use the re-plan path)`);
const { body, head } = await github('GET', `/pulls/${pull.number}`);
const { flags, rejected } = parseAcknowledgements(body);
for (const line of rejected) console.log(`::error::#${pull.number}: ${REJECTED_HINT}: ${line}`);
if (rejected.length > 0) process.exit(1);

const comment = await ownComment(pull.number, MARKER);
const carried = comment && extract(comment.body);
if (!carried)
  fail(`#${pull.number} has no sitesync plan comment with a plan file: re-run its plan, or use the re-plan path`);
if (carried.head !== head.sha) {
  fail(
    `#${pull.number}: the plan comment is of ${carried.head}, not of the merged head ${head.sha}: run the re-plan path (this workflow by hand on the default branch: Run workflow), with the acknowledge input if its plan needs one`,
  );
}
writeFileSync(planOut, carried.planText);
writeFileSync(acknowledgementsOut, flags.map((flag) => `${flag}\n`).join(''));
console.log(`reviewed plan: #${pull.number} at ${head.sha}`);
if (flags.length > 0) console.log(`acknowledged in #${pull.number}: ${flags.join(' ')}`);
