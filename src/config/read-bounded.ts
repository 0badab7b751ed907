/**
 * Reading one configuration input without trusting its size or its kind:
 * a regular file, a pipe, a FIFO, a character device (/dev/zero) or standard
 * input. At most `limit + 1` bytes are ever read, and the read gives up at once
 * when `signal` aborts (Ctrl-C/SIGTERM), even while a FIFO has no writer yet.
 */
import { closeSync, constants, createReadStream, fstatSync, openSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';

export type BoundedRead =
  | { kind: 'ok'; bytes: Buffer }
  | { kind: 'too-large' }
  | { kind: 'interrupted' }
  | { kind: 'failed'; code: string };

/** Reads `stream` until its end, `limit` exceeded, or `signal`; destroys it unless `keepOpen` (stdin). */
export function readStreamBounded(
  stream: Readable,
  limit: number,
  signal?: AbortSignal,
  keepOpen = false,
): Promise<BoundedRead> {
  return new Promise((resolveRead) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BoundedRead): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
      if (keepOpen) stream.pause();
      else stream.destroy();
      resolveRead(result);
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > limit) finish({ kind: 'too-large' });
      else chunks.push(buffer);
    };
    const onEnd = (): void => finish({ kind: 'ok', bytes: Buffer.concat(chunks) });
    const onError = (error: NodeJS.ErrnoException): void => finish({ kind: 'failed', code: error.code ?? 'EIO' });
    const onAbort = (): void => finish({ kind: 'interrupted' });
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

/**
 * Opens `path` without blocking (a FIFO with no writer would block open(2)),
 * then reads it the way its kind allows: FIFOs and sockets through the event
 * loop (no thread waits on them), everything else in bounded chunks.
 */
export async function readPathBounded(path: string, limit: number, signal?: AbortSignal): Promise<BoundedRead> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { kind: 'failed', code: (error as NodeJS.ErrnoException).code ?? 'EIO' };
  }
  const stat = fstatSync(fd);
  if (stat.isFIFO() || stat.isSocket()) {
    return readStreamBounded(new Socket({ fd, readable: true, writable: false }), limit, signal);
  }
  if (stat.isFile() && stat.size > limit) {
    closeSync(fd);
    return { kind: 'too-large' };
  }
  const stream = createReadStream('', { fd, highWaterMark: 64 * 1024, end: limit });
  return readStreamBounded(stream, limit, signal);
}
