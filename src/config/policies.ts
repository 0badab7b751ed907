/**
 * `policies:` (docs/config.md, Policies) as written → PolicyDeclaration[]:
 * entries of every file, in file order; names unique across files; globs
 * checked as `manage`'s; target names checked against `targets:`. The rules
 * themselves are compiled by src/plan/policies/ (the CEL library's home):
 * here each declaration only learns where its rule is written, so a compile
 * error can name file:line:column.
 */
import type { ConfigProblem, TargetDeclaration } from '../model/desired-state.js';
import { matchesGlob } from '../model/glob.js';
import type { PolicyDeclaration } from '../model/policies.js';
import { formatLocation, locate, locationAt, problemAt, rangeOf, type SourceFile } from './positions.js';
import type { Policy } from './schema-types.js';
import { globs, type LoadedFile } from './top-level.js';

/** `targets`: the declared ones, or `omitted` when the files were read without them (not checked here). */
export function resolvePolicies(
  files: readonly LoadedFile[],
  targets: readonly TargetDeclaration[] | undefined | 'omitted',
  problems: ConfigProblem[],
): PolicyDeclaration[] | undefined {
  const declared: PolicyDeclaration[] = [];
  const first = new Map<string, { source: SourceFile; index: number }>();
  for (const { source, config } of files) {
    const list: unknown = config.policies;
    if (!Array.isArray(list)) continue;
    list.forEach((entry: Policy, index) => {
      if (entry === null || typeof entry !== 'object' || typeof entry.name !== 'string') return;
      if (typeof entry.rule !== 'string' || typeof entry.message !== 'string') return;
      const earlier = first.get(entry.name);
      if (earlier !== undefined) {
        const where = formatLocation(locate(earlier.source, ['policies', earlier.index, 'name']));
        const message = `"${entry.name}" is already the name of the policy at ${where}: acknowledgements name policies, so each name is used once`;
        problems.push(problemAt(source, ['policies', index, 'name'], message, { code: 'duplicate' }));
        return;
      }
      first.set(entry.name, { source, index });
      const located = { source, value: list };
      const match = {
        include: globs(located, ['policies', index, 'match', 'include'], problems) ?? [],
        exclude: globs(located, ['policies', index, 'match', 'exclude'], problems) ?? [],
        targets: targetNames(source, index, entry.match?.targets, targets, problems),
      };
      declared.push({
        name: entry.name,
        match,
        rule: entry.rule,
        message: entry.message,
        severity: entry.severity ?? 'error',
        rulePath: `policies[${index}].rule`,
        locate: (offset) => locationAt(source, ruleOffset(source, index, entry.rule, offset)),
      });
    });
  }
  return declared.length > 0 ? declared : undefined;
}

/** `match.targets`, each naming a declared target (or a glob matching one). */
function targetNames(
  source: SourceFile,
  index: number,
  written: unknown,
  targets: readonly TargetDeclaration[] | undefined | 'omitted',
  problems: ConfigProblem[],
): string[] {
  if (!Array.isArray(written)) return [];
  const names = written.filter((name): name is string => typeof name === 'string');
  if (targets === 'omitted') return names;
  names.forEach((name, at) => {
    const path = ['policies', index, 'match', 'targets', at];
    if (targets === undefined) {
      problems.push(problemAt(source, path, `names target "${name}", but the configuration declares no targets`));
    } else if (!targets.some((target) => matchesGlob(target.name, name))) {
      const declared = targets.map((target) => target.name).join(', ');
      problems.push(problemAt(source, path, `"${name}" matches no target (declared: ${declared})`));
    }
  });
  return names;
}

/**
 * The file offset of character `offset` of the rule: its characters are
 * matched in order against the scalar as written, so quotes, escapes and the
 * line breaks of a block scalar (`rule: |`) are stepped over.
 */
function ruleOffset(source: SourceFile, index: number, rule: string, offset: number): number {
  const range = rangeOf(source, ['policies', index, 'rule']);
  if (range === undefined || source.text === undefined) return 0;
  const written = source.text.slice(range[0], range[1]);
  let at = 0;
  for (let i = 0; i < Math.min(offset, rule.length); i++) {
    if (/\s/.test(rule[i]!)) continue;
    const found = written.indexOf(rule[i]!, at);
    if (found === -1) break;
    at = found + 1;
  }
  // At the offset's own character when it is written as itself; else just after the last one matched.
  const own = offset < rule.length && !/\s/.test(rule[offset]!) ? written.indexOf(rule[offset]!, at) : -1;
  return range[0] + (own === -1 ? at : own);
}
