// The request log's writer under `sitesync serve` (src/server/http/log-writer.ts): every
// line written before `flush` settles, and a pipe whose reader has gone (a FIFO whose
// only reader is closed: EPIPE) or a full disk (ENOSPC) neither crashes it nor hangs its flush at shutdown.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { asyncLineWriter } from '../../src/server/http/log-writer.js';
import { tempDir } from '../helpers/temp.js';

describe('asyncLineWriter', () => {
  test('flush settles once every line is written, in order', async () => {
    const path = join(tempDir('log-writer'), 'log.txt');
    const fd = openSync(path, 'w');
    try {
      const writer = asyncLineWriter(fd, (text) => text.toUpperCase());
      for (let i = 0; i < 100; i++) writer.write(`line ${i}`);
      await writer.flush();
      const expected = Array.from({ length: 100 }, (_, i) => `LINE ${i}\n`).join('');
      expect(readFileSync(path, 'utf8')).toBe(expected);
    } finally {
      closeSync(fd);
    }
  });

  test('a reader that has gone: lines are dropped, nothing is thrown, flush settles', async () => {
    const fifo = join(tempDir('log-writer'), 'log.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const fd = openSync(fifo, 'w');
    closeSync(reader); // the reader leaves: every write now fails with EPIPE
    try {
      const writer = asyncLineWriter(fd);
      // The first line is in flight when the second is queued, and flush comes before
      // the failure of the first is known: it must not retry the queued one for ever.
      writer.write('first');
      writer.write('second');
      await writer.flush();
      writer.write('after');
      await writer.flush();
    } finally {
      closeSync(fd);
    }
  });

  test('a full disk (/dev/full: ENOSPC): said once through onFailure, lines dropped, nothing thrown, flush settles', async () => {
    const fd = openSync('/dev/full', 'w');
    const failures: string[] = [];
    try {
      const writer = asyncLineWriter(fd, undefined, (error) => failures.push(error.code ?? ''));
      writer.write('first');
      writer.write('second');
      await writer.flush();
      writer.write('after');
      await writer.flush();
      expect(failures).toEqual(['ENOSPC']);
    } finally {
      closeSync(fd);
    }
  });
});
