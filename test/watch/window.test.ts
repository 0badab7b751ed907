/** Sync windows (`--window`): parsing, the zone's wall clock (summer and winter time), windows past midnight. */
import { describe, expect, it } from 'vitest';
import { inAnyWindow, inWindow, parseWindow, type Window } from '../../src/watch/window.js';

const windowOf = (text: string): Window => {
  const window = parseWindow(text);
  if (typeof window === 'string') throw new Error(window);
  return window;
};

describe('--window', () => {
  it('follows the zone through summer and winter time', () => {
    const office = windowOf('Mon-Fri 09:00-17:00 Europe/Berlin');
    expect(inWindow(office, Date.parse('2026-07-06T07:00:00Z'))).toBe(true); // Monday 09:00 CEST
    expect(inWindow(office, Date.parse('2026-07-06T06:59:00Z'))).toBe(false);
    expect(inWindow(office, Date.parse('2026-01-05T07:30:00Z'))).toBe(false); // Monday 08:30 CET
    expect(inWindow(office, Date.parse('2026-01-05T08:00:00Z'))).toBe(true);
    expect(inWindow(office, Date.parse('2026-07-04T10:00:00Z'))).toBe(false); // Saturday
  });

  it('passes midnight: the morning part belongs to the day the window started', () => {
    const night = windowOf('Fri 22:00-02:00');
    expect(inWindow(night, Date.parse('2026-07-10T23:00:00Z'))).toBe(true); // Friday night
    expect(inWindow(night, Date.parse('2026-07-11T01:00:00Z'))).toBe(true); // Saturday early
    expect(inWindow(night, Date.parse('2026-07-12T01:00:00Z'))).toBe(false); // Sunday early
  });

  it('ends at its end minute: 17:00 of 09:00-17:00 and 02:00 of Fri 22:00-02:00 are outside', () => {
    const office = windowOf('Mon-Fri 09:00-17:00 UTC');
    expect(inWindow(office, Date.parse('2026-07-06T16:59:00Z'))).toBe(true);
    expect(inWindow(office, Date.parse('2026-07-06T17:00:00Z'))).toBe(false);
    const night = windowOf('Fri 22:00-02:00');
    expect(inWindow(night, Date.parse('2026-07-10T22:00:00Z'))).toBe(true); // its first minute
    expect(inWindow(night, Date.parse('2026-07-10T21:59:00Z'))).toBe(false);
    expect(inWindow(night, Date.parse('2026-07-11T01:59:00Z'))).toBe(true);
    expect(inWindow(night, Date.parse('2026-07-11T02:00:00Z'))).toBe(false);
  });

  it('reads the minutes of the wall clock, not only its hour', () => {
    const late = windowOf('Mon 09:30-17:00');
    expect(inWindow(late, Date.parse('2026-07-06T09:29:00Z'))).toBe(false);
    expect(inWindow(late, Date.parse('2026-07-06T09:45:00Z'))).toBe(true);
  });

  it('takes spaces around and between its words', () => {
    expect(windowOf('  Mon-Fri   09:00-17:00\tUTC ')).toMatchObject({ start: 540, end: 1020, zone: 'UTC' });
  });

  it('takes day lists and the whole day', () => {
    const weekend = windowOf('Sat,Sun 00:00-24:00 UTC');
    expect(inWindow(weekend, Date.parse('2026-07-12T23:59:00Z'))).toBe(true);
    expect(inWindow(weekend, Date.parse('2026-07-13T00:00:00Z'))).toBe(false);
  });

  it('takes a day range across the week end, in any case, and keeps the text as written', () => {
    const long = windowOf('fri-MON 10:00-11:00 Europe/Berlin');
    expect([...long.days].sort()).toEqual([0, 1, 5, 6]);
    expect(long).toMatchObject({
      text: 'fri-MON 10:00-11:00 Europe/Berlin',
      start: 600,
      end: 660,
      zone: 'Europe/Berlin',
    });
    expect(windowOf('Tue 23:59-24:00').start).toBe(23 * 60 + 59);
    expect(windowOf('Tue 00:00-00:59').end).toBe(59);
  });

  it('past midnight, the evening belongs to its own day and the morning to the day before', () => {
    const night = windowOf('Fri 22:00-02:00');
    expect(inWindow(night, Date.parse('2026-07-09T23:00:00Z'))).toBe(false); // Thursday night
    expect(inWindow(night, Date.parse('2026-07-10T01:00:00Z'))).toBe(false); // Friday early: Thursday's night
    expect(inAnyWindow([windowOf('Thu 22:00-02:00'), night], Date.parse('2026-07-10T01:00:00Z'))).toBe(true);
    expect(inAnyWindow([], Date.parse('2026-07-10T01:00:00Z'))).toBe(false);
  });

  it('names what is wrong', () => {
    expect(parseWindow('Mon-Fri 9-17')).toBe('"9-17" is not a time range HH:MM-HH:MM');
    for (const range of ['24:00-01:00', '09:00-25:00', '09:60-10:00', '09:00-10:60', '09:00-24:01'])
      expect(parseWindow(`Mon ${range}`)).toBe(`"${range}" is not a time range HH:MM-HH:MM`);
    for (const range of ['109:00-17:00', '09:00-17:001'])
      expect(parseWindow(`Mon ${range}`)).toBe(`"${range}" is not a time range HH:MM-HH:MM`);
    expect(parseWindow('Mon 10:00-10:00')).toBe('"10:00-10:00" is an empty time range');
    expect(parseWindow('Mon 09:00-17:00 UTC more')).toBe(
      '"Mon 09:00-17:00 UTC more" is not DAYS HH:MM-HH:MM [ZONE] (e.g. Mon-Fri 09:00-17:00 Europe/Berlin)',
    );
    expect(parseWindow('Mon,Fun 09:00-17:00')).toBe('"Fun" is not a day or day range (Mon, Mon-Fri, Sat,Sun)');
    expect(parseWindow('Mon-Fry 09:00-17:00')).toContain('"Mon-Fry" is not a day');
    expect(parseWindow('Mon 09:00-17:00 Mars/Olympus')).toContain('"Mars/Olympus" is not a time zone');
    expect(parseWindow('09:00-17:00')).toContain('is not DAYS HH:MM-HH:MM');
  });
});
