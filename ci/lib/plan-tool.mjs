// The shell steps' door to lib/: `node plan-tool.mjs COMMAND ARGS`.
//   embed PLAN HEAD       the hidden block carrying PLAN (a saved plan file), planned at HEAD
//   commits PLAN          the commits its baselines were read at, one per line
//   lockfile-pin FILE     `resolved integrity` of node_modules/sitesync in a package-lock.json
import { readFileSync } from 'node:fs';
import { baselineCommits, embed } from './plan-file.mjs';

const [command, file, extra] = process.argv.slice(2);
const text = () => readFileSync(file, 'utf8');
const out = (lines) => process.stdout.write(lines.map((line) => `${line}\n`).join(''));

switch (command) {
  case 'embed': {
    const block = embed(text(), extra);
    if (block === undefined) {
      console.error(
        `${file} is too large to carry in the pull request's comment: split the change into smaller pull requests`,
      );
      process.exit(1);
    }
    out([block]);
    break;
  }
  case 'commits':
    out(baselineCommits(JSON.parse(text())));
    break;
  case 'lockfile-pin': {
    const entry = JSON.parse(text()).packages?.['node_modules/sitesync'];
    if (entry?.resolved === undefined) {
      console.error(
        `${file} pins no sitesync (node_modules/sitesync): add it (docs/workflows.md, "Installing sitesync in CI")`,
      );
      process.exit(1);
    }
    out([`${entry.resolved} ${entry.integrity ?? '-'}`]);
    break;
  }
  default:
    console.error(`plan-tool.mjs: unknown command ${command}`);
    process.exit(2);
}
