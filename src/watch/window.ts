/**
 * Sync windows, as Argo CD's: `Mon-Fri 09:00-17:00 Europe/Berlin` (days as a
 * range or a comma list, a time range that may pass midnight, an IANA zone,
 * UTC when omitted). PURE: the time is an argument; the zone's wall time
 * comes from Intl, so summer time is the zone's, not ours.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

export interface Window {
  /** As written, for messages and /status. */
  text: string;
  days: ReadonlySet<number>;
  /** Minutes after midnight; `end` ≤ `start` means the window passes midnight. */
  start: number;
  end: number;
  zone: string;
}

/** Parses one window, or returns the reason it is not one. */
export function parseWindow(text: string): Window | string {
  const parts = text.trim().split(/\s+/);
  if (parts.length < 2 || parts.length > 3)
    return `"${text}" is not DAYS HH:MM-HH:MM [ZONE] (e.g. Mon-Fri 09:00-17:00 Europe/Berlin)`;
  const [dayText = '', timeText = '', zone = 'UTC'] = parts;
  const days = parseDays(dayText);
  if (typeof days === 'string') return days;
  const times = /^(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(timeText);
  const minutes = times?.slice(1).map(Number) ?? [];
  const [h1 = 99, m1 = 99, h2 = 99, m2 = 99] = minutes;
  if (times === null || h1 > 23 || h2 > 24 || m1 > 59 || m2 > 59 || (h2 === 24 && m2 > 0))
    return `"${timeText}" is not a time range HH:MM-HH:MM`;
  const start = h1 * 60 + m1;
  const end = h2 * 60 + m2;
  if (start === end) return `"${timeText}" is an empty time range`;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return `"${zone}" is not a time zone (an IANA name such as Europe/Berlin, or UTC)`;
  }
  return { text, days, start, end, zone };
}

function parseDays(text: string): Set<number> | string {
  const days = new Set<number>();
  for (const item of text.split(',')) {
    const [from, to = from] = item.split('-');
    const first = dayIndex(from);
    const last = dayIndex(to);
    if (first === undefined || last === undefined) return `"${item}" is not a day or day range (Mon, Mon-Fri, Sat,Sun)`;
    for (let day = first; ; day = (day + 1) % 7) {
      days.add(day);
      if (day === last) break;
    }
  }
  return days;
}

const dayIndex = (name: string | undefined): number | undefined => {
  const index = DAYS.findIndex((day) => day.toLowerCase() === name?.toLowerCase());
  return index < 0 ? undefined : index;
};

/** Whether `epochMs` falls inside the window, on the zone's wall clock. */
export function inWindow(window: Window, epochMs: number): boolean {
  const { day, minute } = wallTime(epochMs, window.zone);
  if (window.start < window.end) return window.days.has(day) && minute >= window.start && minute < window.end;
  // Past midnight: the evening part belongs to the day it starts on, the morning part to the day before.
  if (minute >= window.start) return window.days.has(day);
  return minute < window.end && window.days.has((day + 6) % 7);
}

export function inAnyWindow(windows: readonly Window[], epochMs: number): boolean {
  return windows.some((window) => inWindow(window, epochMs));
}

function wallTime(epochMs: number, zone: string): { day: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(epochMs));
  const part = (type: string) => parts.find((each) => each.type === type)?.value ?? '';
  return { day: dayIndex(part('weekday')) ?? 0, minute: Number(part('hour')) * 60 + Number(part('minute')) };
}
