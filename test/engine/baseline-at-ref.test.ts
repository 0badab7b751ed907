/**
 * The configuration read at the baseline's commit (baseline.ts): a directory
 * given with -f is its YAML files there, and what cannot be a baseline is a
 * refusal naming the revision (standard input, a directory without YAML
 * there, a configuration invalid there), never an empty baseline that would
 * class every change as pending.
 */
import { describe, expect, it } from 'vitest';
import { baselineFor, loadBaseline, resolveBaseline } from '../../src/engine/baseline.js';
import { gitRepo } from '../helpers/git-repo.js';

const site = (domain: string) => `  - domain: ${domain}\n`;
const io = (cwd: string) => ({ cwd, env: {} });

describe('a baseline at a named revision', () => {
  it('reads a directory given with -f as its YAML files there, nothing else', async () => {
    const repo = gitRepo();
    repo.commit('v1', {
      'sites/a.yaml': `version: 1\nwebsites:\n${site('a.example')}`,
      'sites/b.YML': `version: 1\nwebsites:\n${site('b.example')}`,
      'sites/notes.txt': 'not a configuration',
      'sites/c.yaml.bak': `version: 1\nwebsites:\n${site('c.example')}`,
    });
    repo.git('tag', 'v1');
    const baseline = await loadBaseline(['sites'], { baseline: 'v1' }, io(repo.dir));
    expect(baseline?.websites.map((website) => website.domain)).toEqual(['a.example', 'b.example']);
  });

  it('refuses a directory that has no YAML file there', async () => {
    const repo = gitRepo();
    repo.commit('v1', { 'sites/notes.txt': 'not a configuration' });
    repo.git('tag', 'v1');
    await expect(loadBaseline(['sites'], { baseline: 'v1' }, io(repo.dir))).rejects.toThrow(
      /^--baseline v1: sites has no \.yaml or \.yml files at v1/,
    );
  });

  it('refuses a configuration that was invalid there, with its first problem', async () => {
    const repo = gitRepo();
    repo.commit('v1', { 'websites.yaml': `version: 1\nwebsite:\n${site('a.example')}` });
    repo.git('tag', 'v1');
    await expect(loadBaseline([], { baseline: 'v1' }, io(repo.dir))).rejects.toThrow(
      /^--baseline v1: the configuration there is invalid: websites\.yaml@v1:2:1: .*website/,
    );
  });

  it('refuses standard input: it has no git history', async () => {
    const repo = gitRepo();
    repo.commit('v1', { 'websites.yaml': `version: 1\nwebsites:\n${site('a.example')}` });
    repo.git('tag', 'v1');
    await expect(resolveBaseline(['-'], { baseline: 'v1' }, io(repo.dir))).rejects.toThrow(
      /^--baseline v1: the configuration comes from standard input, which has no git history/,
    );
  });

  it('reads a target’s baseline from websites.yaml when no root file is named', async () => {
    const repo = gitRepo();
    const targets = 'targets:\n  - name: prod\n    url: https://stats.example.com\n    key_env: SITESYNC_PROD_KEY\n';
    repo.commit('v1', { 'websites.yaml': `version: 1\n${targets}websites:\n${site('a.example')}` });
    repo.git('tag', 'v1');
    const at = await resolveBaseline([], { baseline: 'v1' }, io(repo.dir));
    const target = {
      name: 'prod',
      url: 'https://stats.example.com',
      key: { env: 'SITESYNC_PROD_KEY' },
      files: [],
      declaredIn: 'websites.yaml',
    };
    const baseline = await baselineFor({ files: [], target }, at, io(repo.dir));
    expect(baseline?.ref.noConfiguration).toBeUndefined();
    expect(baseline?.websites.map((website) => website.domain)).toEqual(['a.example']);
  });
});
