/**
 * What `bin/sitesync.js` runs: the CLI with Ctrl-C handling. `npm run build`
 * bundles this file (scripts/bundle.mjs) into dist/bin/, one module per
 * command loaded on demand, so a start resolves a handful of files, not hundreds.
 */
import { processIo } from './io.js';
import { main } from './main.js';

const controller = new AbortController();
let interrupts = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupts += 1;
    // A second Ctrl-C means "now": leave at once.
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error(signal));
  });
}

process.exitCode = await main(process.argv.slice(2), processIo(controller.signal));
