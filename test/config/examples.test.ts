/**
 * Every example in examples/ (each *.yaml, and each directory of split files
 * apart from examples/ci, examples/cron and examples/watch) validates cleanly (its policies
 * compile), and its schema modeline points at the real schema.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatProblem, loadConfig } from '../../src/config/index.js';
import { policyProblems, withPolicyProblems } from '../../src/engine/policies.js';
import { targetFiles } from '../../src/engine/targets.js';
import { EXAMPLE_ENV } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');
const NOT_CONFIGS = new Set(['ci', 'cron', 'watch']);

const examples = readdirSync(EXAMPLES)
  .filter((name) => (statSync(join(EXAMPLES, name)).isDirectory() ? !NOT_CONFIGS.has(name) : /\.ya?ml$/.test(name)))
  .sort();

function yamlFiles(name: string): string[] {
  const path = join(EXAMPLES, name);
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => join(path, file));
}

describe('examples', () => {
  it('include a starter, a realistic one and a split one', () => {
    expect(examples).toEqual(expect.arrayContaining(['realistic.yaml', 'split', 'starter.yaml']));
  });

  it.each(examples)('%s is valid, without warnings', async (name) => {
    const result = withPolicyProblems(
      await loadConfig({ files: [join('examples', name)], cwd: ROOT, env: EXAMPLE_ENV }),
    );
    expect([...result.errors, ...result.warnings].map(formatProblem)).toEqual([]);
    expect(result.state?.websites.length).toBeGreaterThan(0);
  });

  it.each(examples)('%s starts with a schema modeline that resolves to schemas/websites.schema.json', (name) => {
    for (const file of yamlFiles(name)) {
      const first = readFileSync(file, 'utf8').split('\n')[0]!;
      const target = /^# yaml-language-server: \$schema=(.+)$/.exec(first)?.[1];
      expect(target, file).toBeDefined();
      const schema = resolve(dirname(file), target!);
      expect(schema).toBe(join(ROOT, 'schemas', 'websites.schema.json'));
      expect(existsSync(schema)).toBe(true);
    }
  });

  it('targets/ declares staging and production; each target with its own files is valid, without warnings', async () => {
    const base = await loadConfig({ files: ['examples/targets'], cwd: ROOT, env: EXAMPLE_ENV });
    const targets = base.state?.targets ?? [];
    expect(targets.map((target) => target.name)).toEqual(['staging', 'production']);
    for (const target of targets) {
      const files = targetFiles(['examples/targets'], target, ROOT);
      const result = await loadConfig({ files, cwd: ROOT, env: EXAMPLE_ENV });
      expect([...result.errors, ...result.warnings].map(formatProblem), target.name).toEqual([]);
      expect(result.state!.websites.length).toBeGreaterThan(2);
      for (const file of files.filter((path) => path.endsWith('.yaml'))) {
        const first = readFileSync(file, 'utf8').split('\n')[0]!;
        const schema = /^# yaml-language-server: \$schema=(.+)$/.exec(first)?.[1];
        expect(resolve(dirname(file), schema ?? ''), file).toBe(join(ROOT, 'schemas', 'websites.schema.json'));
      }
    }
  });

  it('policies/ keeps its rules in a file of their own: five, over websites and over the plan, errors and warnings', async () => {
    const state = (await loadConfig({ files: ['examples/policies'], cwd: ROOT, env: EXAMPLE_ENV })).state!;
    expect(state.files).toEqual(['examples/policies/policies.yaml', 'examples/policies/websites.yaml']);
    const policies = state.policies ?? [];
    expect(policies.map((policy) => [policy.name, policy.severity])).toEqual([
      ['production-excludes-bots', 'error'],
      ['public-only-marketing', 'error'],
      ['keep-campaign-parameters', 'warning'],
      ['few-deletes', 'error'],
      ['no-deleting-what-others-made', 'error'],
    ]);
    expect(policyProblems(state)).toEqual([]);
  });

  it('realistic.yaml has 20+ sites across products, with defaults, protect and scope', async () => {
    const state = (await loadConfig({ files: ['examples/realistic.yaml'], cwd: ROOT, env: EXAMPLE_ENV })).state!;
    expect(state.websites.length).toBeGreaterThanOrEqual(20);
    expect(state.policy.protect.length).toBeGreaterThan(0);
    expect(state.policy.manage.exclude.length).toBeGreaterThan(0);
    expect(state.websites.filter((site) => site.password !== undefined).map((site) => site.domain)).toEqual([
      'investors.orbit.example',
      'partners.acme.example',
    ]);
  });
});
