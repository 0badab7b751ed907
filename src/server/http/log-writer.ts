/**
 * The request log's writer for `sitesync serve`: lines go to stderr through
 * sonic-boom (pino's writer) in asynchronous mode, so a slow or stalled reader
 * of stderr (a full pipe) delays the log, never the requests.
 */
// A CommonJS module: its ESM default is the constructor, which also carries itself as `.SonicBoom`.
import sonicBoom from 'sonic-boom';

export interface LineWriter {
  write(line: string): void;
  /** Writes what is still buffered; call before exit. */
  flush(): void;
}

/** Asynchronous, buffered lines to a file descriptor (stderr: 2). */
export function asyncLineWriter(fd: number, transform: (text: string) => string = (text) => text): LineWriter {
  const destination = new sonicBoom.SonicBoom({ fd, sync: false, minLength: 0 });
  let open = true;
  // The log's reader went away (EPIPE: `serve 2>&1 | head`, a log collector restarting): the
  // server keeps serving and its lines are dropped (docs/server.md). Any other failure still crashes.
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') throw error;
    open = false;
  });
  return {
    write: (line) => {
      if (open) destination.write(transform(`${line}\n`));
    },
    flush: () => {
      // sonic-boom's flushSync retries a failed write for ever: never on a closed pipe.
      if (!open) return;
      try {
        destination.flushSync();
      } catch {
        // A closed or stalled stderr must not turn a clean shutdown into a crash.
      }
    },
  };
}
