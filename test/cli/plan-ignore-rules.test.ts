/**
 * Expiring ignore_changes rules end to end against the reference server: the
 * day comes from the injected clock (io.now), never the wall clock.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client } from '../helpers/server.js';
import { config, useCliFixture } from './apply-support.js';

const RULE =
  '    email: true\n    ignore_changes:\n      - field: email\n        reason: CRM migration\n        until: 2026-06-30\n';
const day = (iso: string) => () => new Date(iso);

describe('ignore_changes with until', () => {
  const cli = useCliFixture({
    config: config({ 'crm.example': RULE }),
    before: async ({ server }) => {
      const created = await client(server)('POST', '/api/v1/websites', { form: { domain: 'crm.example', email: '0' } });
      expect(created.status).toBe(201);
    },
  });

  it('ignores the field through its until day (UTC), then compares it again and notes the expiry', async () => {
    const lastDay = await cli.ws.run(['plan', '--detailed-exitcode'], { now: day('2026-06-30T23:59:59Z') });
    expect(lastDay.code).toBe(0);
    expect(lastDay.out).toContain('email: false → true (ignored: ignore_changes)');
    expect(lastDay.out).not.toContain('expired');

    const after = await cli.ws.run(['plan', '--detailed-exitcode'], { now: day('2026-07-01T00:00:00Z') });
    expect(after.code).toBe(2);
    expect(after.out).toContain('~ crm.example (id 1) will be updated\n    email: false → true\n');
    expect(after.out).toContain(
      'Note: ignore_changes for email expired on 2026-06-30 (UTC) (reason: CRM migration): email is compared again on 1 website; remove the rule or move its until (crm.example)\n',
    );

    const json = await cli.ws.run(['plan', '--format', 'json'], { now: day('2026-07-01T00:00:00Z') });
    expect(JSON.parse(json.out).notes).toContainEqual({
      kind: 'ignore_expired',
      message:
        'ignore_changes for email expired on 2026-06-30 (UTC) (reason: CRM migration): email is compared again on 1 website; remove the rule or move its until',
      domains: ['crm.example'],
      field: 'email',
      until: '2026-06-30',
      reason: 'CRM migration',
    });
  });

  it('a plan saved on the last day of a rule applies after it as reviewed: re-derived with the day it was made', async () => {
    const made = await cli.ws.run(['plan', '--out', 'plan.json'], { now: day('2026-06-30T23:00:00Z') });
    expect(made.code).toBe(0);
    expect(JSON.parse(readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8')).policy.today).toBe('2026-06-30');
    const applied = await cli.ws.run(['apply', 'plan.json'], { now: day('2026-07-01T01:00:00Z') });
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('email: false → true (ignored: ignore_changes)');
    expect(applied.out).not.toContain('expired');
    // What was reviewed (email ignored) is what happened: the live value is untouched.
    const site = await client(cli.server)('GET', '/api/v1/websites/1');
    expect(site.body.data).toMatchObject({ email: 0 });
  });

  it('validate warns about an expired rule with file:line, and not before', async () => {
    const before = await cli.ws.run(['validate'], { now: day('2026-06-30T12:00:00Z') });
    expect(before.out).toBe('websites.yaml: valid (1 website, 0 warnings)\n');
    const after = await cli.ws.run(['validate'], { now: day('2026-07-02T08:00:00Z') });
    expect(after.code).toBe(0);
    expect(after.out).toContain(
      'websites.yaml:8:16: warning: websites[0].ignore_changes[0].until expired on 2026-06-30 (UTC) (reason: CRM migration): email is compared again; remove the rule or move the date\n',
    );
  });
});
