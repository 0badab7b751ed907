/**
 * The saved plan file `apply` is given, read like every other input: bounded,
 * and giving way to cancellation.
 */
import { readPathBounded } from '../config/read-bounded.js';
import { SitesyncError } from '../model/errors.js';

/** A saved plan larger than this is not one sitesync wrote (a plan of 100,000 sites is about 60 MB). */
export const MAX_PLAN_FILE_BYTES = 256 * 1024 * 1024;

/**
 * The saved plan, read like every other input (issue 16 item 14): bounded whatever the file's
 * kind (/dev/zero, a pipe), and giving way to Ctrl-C/SIGTERM even on a FIFO with no writer.
 */
export async function readPlanFile(path: string, shown: string, signal?: AbortSignal): Promise<string> {
  const read = await readPathBounded(path, MAX_PLAN_FILE_BYTES, signal);
  switch (read.kind) {
    case 'ok':
      return read.bytes.toString('utf8');
    case 'interrupted':
      throw new SitesyncError('interrupted', `interrupted while reading ${shown}`);
    case 'too-large':
      throw new SitesyncError(
        'usage',
        `${shown}: the plan file is larger than the limit of ${MAX_PLAN_FILE_BYTES} bytes`,
      );
    default:
      throw new SitesyncError(
        'usage',
        `${shown}: ${read.code === 'ENOENT' ? 'no such file' : `cannot be read (${read.code})`}`,
      );
  }
}
