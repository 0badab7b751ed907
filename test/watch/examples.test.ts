/**
 * examples/watch stays true: the systemd unit's and the Deployment's flags are
 * flags `sitesync watch` has, and every metric the PrometheusRule and the docs
 * name is one the watch exports.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { PrometheusMetrics } from '../../src/watch/prometheus.js';
import { parseExposition } from '../helpers/prometheus-text.js';

const read = (path: string) => readFileSync(path, 'utf8');
const flagsIn = (text: string) => [...new Set([...text.matchAll(/\s(--[a-z-]+)/g)].map((match) => match[1]!))];

describe('examples/watch', () => {
  it('uses only flags that sitesync watch has', async () => {
    const io = captureIo();
    await main(['watch', '--help'], io);
    const help = io.out();
    const deployment = parseAllDocuments(read('examples/watch/kubernetes/deployment.yaml')).map((doc) => doc.toJS());
    const args: string[] = deployment[0].spec.template.spec.containers[0].args;
    expect(args[0]).toBe('watch');
    const unit = read('examples/watch/sitesync-watch.service');
    const execStart = unit.slice(unit.indexOf('ExecStart='), unit.indexOf('ExecReload='));
    const flags = [...flagsIn(execStart), ...args.slice(1).map((arg) => arg.split('=')[0]!)];
    expect(flags.length).toBeGreaterThan(8);
    for (const flag of flags.filter((flag) => flag !== '--no-install')) expect(help, flag).toContain(flag);
  });

  it('pin where the key may go outside the pulled configuration (issue 33)', () => {
    const deployment = parseAllDocuments(read('examples/watch/kubernetes/deployment.yaml')).map((doc) => doc.toJS());
    const env: { name: string; value: string }[] = deployment[0].spec.template.spec.containers[0].env;
    expect(env).toContainEqual({ name: 'SITESYNC_URL', value: expect.stringMatching(/^https:\/\//) });
    expect(read('examples/watch/sitesync-watch.service')).toMatch(
      /SITESYNC_URL=https:\/\/.*SITESYNC_ALLOWED_ORIGINS=/s,
    );
  });

  it('alerts on metrics the watch exports', async () => {
    const metrics = new PrometheusMetrics();
    metrics.know('production');
    const exported = new Set(parseExposition(await metrics.text()).samples.map((sample) => sample.name));
    const rules = parseAllDocuments(read('examples/watch/kubernetes/prometheusrule.yaml'))[0]!.toJS();
    const expressions: string[] = rules.spec.groups[0].rules.map((rule: { expr: string }) => rule.expr);
    const named = [...expressions.join(' ').matchAll(/\b((?:sitesync|process)_[a-z_]+)/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThanOrEqual(3);
    for (const name of named) expect(exported, name).toContain(name);
    const documented = [...read('docs/watch.md').matchAll(/`(sitesync_[a-z_]+)/g)].map((match) => match[1]!);
    for (const name of documented) expect(exported.has(name) || exported.has(`${name}_bucket`), name).toBe(true);
  });
});
