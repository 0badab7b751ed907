/** Alert transitions, pure (alerts.ts): fire once, a reminder exactly when --renotify has passed, resolve once. */
import { describe, expect, it } from 'vitest';
import { Alerts } from '../../src/watch/alerts.js';
import { MemoryAlertState } from '../../src/watch/coordination/port.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-07-06T12:00:00Z');

describe('Alerts', () => {
  it('reminds exactly --renotify after the last document, not a check later', async () => {
    const alerts = new Alerts(4 * HOUR, new MemoryAlertState());
    const drift = (now: number) => alerts.update('prod', 'drift', { active: true, domains: ['a.example'] }, now);
    expect(await drift(T0)).toMatchObject({ status: 'firing', reminder: false, since: '2026-07-06T12:00:00.000Z' });
    expect(await drift(T0 + 4 * HOUR - 1)).toBeUndefined();
    expect(await drift(T0 + 4 * HOUR)).toMatchObject({
      status: 'firing',
      reminder: true,
      text: 'sitesync watch: still drift on prod: a.example',
      since: '2026-07-06T12:00:00.000Z',
      at: '2026-07-06T16:00:00.000Z',
    });
    // The next reminder counts from this one.
    expect(await drift(T0 + 8 * HOUR - 1)).toBeUndefined();
    expect(await drift(T0 + 8 * HOUR)).toMatchObject({ reminder: true });
    expect(await alerts.update('prod', 'drift', { active: false }, T0 + 9 * HOUR)).toMatchObject({
      status: 'resolved',
      reminder: false,
      text: 'sitesync watch: resolved on prod: drift',
    });
    expect(await alerts.update('prod', 'drift', { active: false }, T0 + 10 * HOUR)).toBeUndefined();
  });
});

describe('alert documents', () => {
  it('name the target, the sites (the first ten) and the reason, and list what fires', async () => {
    const alerts = new Alerts(HOUR, new MemoryAlertState());
    const domains = Array.from({ length: 12 }, (_, index) => `s${String(index).padStart(2, '0')}.example`);
    expect(await alerts.update('prod', 'conflict', { active: true, domains }, T0)).toEqual({
      text: `sitesync watch: a conflict on prod: ${domains.slice(0, 10).join(', ')} and 2 more`,
      source: 'sitesync watch',
      target: 'prod',
      alert: 'conflict',
      status: 'firing',
      reminder: false,
      domains,
      since: '2026-07-06T12:00:00.000Z',
      at: '2026-07-06T12:00:00.000Z',
    });
    expect(
      await alerts.update('prod', 'check_failing', { active: true, reason: 'connection refused' }, T0),
    ).toMatchObject({
      text: 'sitesync watch: checks failing on prod (connection refused)',
      domains: [],
      reason: 'connection refused',
    });
    const ten = domains.slice(0, 10);
    expect(
      (await new Alerts(HOUR, new MemoryAlertState()).update('prod', 'drift', { active: true, domains: ten }, T0))
        ?.text,
    ).toBe(`sitesync watch: drift on prod: ${ten.join(', ')}`);
    expect((await alerts.update('prod', 'heal_stopped', { active: true, domains: ['a.example'] }, T0))?.text).toBe(
      'sitesync watch: self-heal stopped after repeated failures on prod: a.example',
    );
    expect(await alerts.update('staging', 'drift', { active: false }, T0)).toBeUndefined();
    expect(alerts.firing('prod')).toEqual(['conflict', 'check_failing', 'heal_stopped']);
    expect(alerts.firing('staging')).toEqual([]);
    expect(await alerts.update('prod', 'check_failing', { active: false }, T0 + HOUR / 2)).toMatchObject({
      text: 'sitesync watch: resolved on prod: checks failing',
      since: '2026-07-06T12:00:00.000Z',
      at: '2026-07-06T12:30:00.000Z',
    });
    expect(alerts.firing('prod')).toEqual(['conflict', 'heal_stopped']);
  });
});
