/**
 * What `bin/sitesync.js` runs: the CLI with Ctrl-C handling. `npm run build`
 * bundles this file (scripts/bundle.mjs) into dist/bin/, one module per
 * command loaded on demand, so a start resolves a handful of files, not hundreds.
 */
import { EXIT } from './exit-code.js';
import { main } from './main.js';
import { processIo } from './process-io.js';
import { tuneV8For } from './v8-flags.js';

tuneV8For(process.argv[2]);

const controller = new AbortController();
let first: 'SIGINT' | 'SIGTERM' | undefined;
/** An interruption exits as a shell reports the signal: 130 for SIGINT, 143 for SIGTERM (main.ts: 141, a closed output). */
const interruptedExit = () => (first === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second Ctrl-C means "now": leave at once.
    if (first !== undefined) process.exit(interruptedExit());
    first = signal;
    controller.abort(new Error(signal));
  });
}

const code = await main(process.argv.slice(2), processIo(controller.signal));
process.exitCode = code === EXIT.interrupted ? interruptedExit() : code;
