/** Alert transitions, pure (alerts.ts): fire once, a reminder exactly when --renotify has passed, resolve once. */
import { describe, expect, it } from 'vitest';
import { Alerts } from '../../src/watch/alerts.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-07-06T12:00:00Z');

describe('Alerts', () => {
  it('reminds exactly --renotify after the last document, not a check later', () => {
    const alerts = new Alerts(4 * HOUR);
    const drift = (now: number) => alerts.update('prod', 'drift', { active: true, domains: ['a.example'] }, now);
    expect(drift(T0)).toMatchObject({ status: 'firing', reminder: false, since: '2026-07-06T12:00:00.000Z' });
    expect(drift(T0 + 4 * HOUR - 1)).toBeUndefined();
    expect(drift(T0 + 4 * HOUR)).toMatchObject({
      status: 'firing',
      reminder: true,
      text: 'sitesync watch: still drift on prod: a.example',
      since: '2026-07-06T12:00:00.000Z',
      at: '2026-07-06T16:00:00.000Z',
    });
    // The next reminder counts from this one.
    expect(drift(T0 + 8 * HOUR - 1)).toBeUndefined();
    expect(drift(T0 + 8 * HOUR)).toMatchObject({ reminder: true });
    expect(alerts.update('prod', 'drift', { active: false }, T0 + 9 * HOUR)).toMatchObject({
      status: 'resolved',
      reminder: false,
      text: 'sitesync watch: resolved on prod: drift',
    });
    expect(alerts.update('prod', 'drift', { active: false }, T0 + 10 * HOUR)).toBeUndefined();
  });
});
