/**
 * The request log's writer for `sitesync serve`: lines go to stderr through
 * sonic-boom (pino's writer) in asynchronous mode, so a slow or stalled reader
 * of stderr (a full pipe) delays the log, never the requests.
 */
// A CommonJS module: its ESM default is the constructor, which also carries itself as `.SonicBoom`.
import sonicBoom from 'sonic-boom';

export interface LineWriter {
  write(line: string): void;
  /** Settles once every line written so far is out (or its reader has gone); await it before exit. */
  flush(): Promise<void>;
}

/**
 * Asynchronous, buffered lines to a file descriptor (stderr: 2). When a write
 * fails, the lines are dropped from then on and the server keeps serving: its
 * reader went away (EPIPE: `serve 2>&1 | head`, a log collector restarting),
 * said nowhere, or anything else (a full disk: ENOSPC), told once to
 * `onFailure` (docs/server.md).
 */
export function asyncLineWriter(
  fd: number,
  transform: (text: string) => string = (text) => text,
  onFailure: (error: NodeJS.ErrnoException) => void = () => {},
): LineWriter {
  const destination = new sonicBoom.SonicBoom({ fd, sync: false, minLength: 0 });
  let open = true;
  /** Bytes handed to sonic-boom and not yet written: its 'write' events count them down. */
  let pending = 0;
  const flushed: (() => void)[] = [];
  const settle = () => {
    if (pending === 0 || !open) for (const resolve of flushed.splice(0)) resolve();
  };
  destination.on('write', (bytes: number) => {
    pending -= bytes;
    settle();
  });
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (!open) return;
    open = false;
    if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') onFailure(error);
    settle();
  });
  return {
    write: (line) => {
      if (!open) return;
      const text = transform(`${line}\n`);
      pending += Buffer.byteLength(text);
      destination.write(text);
    },
    // Not sonic-boom's flushSync: it retries a write that failed with EPIPE for ever.
    flush: () =>
      new Promise((resolve) => {
        flushed.push(resolve);
        settle();
      }),
  };
}
