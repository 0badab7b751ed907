/**
 * What the benchmarks share: the median of a few rounds, and a reference
 * server in a child process (so the load generator does not share its event
 * loop with the server it measures).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * Runs the benchmark `file` again as a child with `--server` and `args`; the
 * child starts a server and prints its URL as its first line of output.
 */
export async function spawnServer(
  file: string,
  args: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...process.execArgv, file, '--server', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
  });
  return { child, url };
}
