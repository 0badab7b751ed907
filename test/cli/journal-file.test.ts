// The journal file when the disk is full (/dev/full: every write fails with ENOSPC);
// the whole apply on it is in test/e2e/output-errors.test.ts.
import { describe, expect, test } from 'vitest';
import { openJournal } from '../../src/cli/journal-file.js';
import { SitesyncError } from '../../src/model/errors.js';

describe('openJournal on a full disk', () => {
  test('a line not written: a readable error naming the file; the line itself goes to `lost` (not `begin`)', () => {
    const lost: string[] = [];
    const journal = openJournal('/dev/full', 'prod', {
      clock: () => new Date('2026-01-02T03:04:05Z'),
      lost: (line) => lost.push(line),
    });
    try {
      const error = new SitesyncError('usage', 'cannot write the journal /dev/full: no space left on device (ENOSPC)');
      expect(() => journal.record({ event: 'begin', total: 1 })).toThrow(error);
      expect(lost).toEqual([]);
      expect(() => journal.record({ event: 'succeeded', action: 'create', domain: 'a.example', id: 7 })).toThrow(error);
      expect(lost.map((line) => JSON.parse(line))).toEqual([
        {
          time: '2026-01-02T03:04:05.000Z',
          target: 'prod',
          event: 'succeeded',
          action: 'create',
          domain: 'a.example',
          id: 7,
        },
      ]);
    } finally {
      journal.close();
    }
  });
});
