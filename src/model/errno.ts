/** System errors (a failed write, open or rename) as a sentence can quote them. */

/**
 * A system error in words, then its code: `no space left on device (ENOSPC)`
 * from Node's `ENOSPC: no space left on device, write` (the system call and
 * any paths after the comma dropped: the message names the file itself).
 */
export function errnoInWords(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === undefined) return message;
  const words = message.startsWith(`${code}: `)
    ? message.slice(code.length + 2).replace(/, \w+( '.*')?$/, '')
    : message;
  return `${words} (${code})`;
}
