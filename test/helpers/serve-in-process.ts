/**
 * `sitesync serve` in-process through main(), on port 0, until its "listening
 * on" line; `stop` aborts it (as SIGTERM does) and gives the exit code.
 */
import { type CapturedIo, captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

export async function serveInProcess(args: string[], env: Record<string, string> = {}) {
  const controller = new AbortController();
  const io: CapturedIo = { ...captureIo({ env }), signal: controller.signal };
  // Resolved by the "listening on" line itself (or by serve ending without one).
  const listening = new Promise<void>((resolve) => {
    const stderr = io.stderr;
    io.stderr = {
      isTTY: stderr.isTTY,
      write: (text) => {
        stderr.write(text);
        if (/listening on .*\n/.test(io.err())) resolve();
      },
    };
  });
  const exit = main(['serve', '--port', '0', ...args], io);
  await Promise.race([listening, exit]);
  const url = /listening on (\S+?)[,\s]/.exec(io.err())?.[1];
  if (!url) throw new Error(`serve did not start: ${io.err()}`);
  return {
    url,
    io,
    stop: async () => {
      controller.abort();
      return exit;
    },
  };
}
