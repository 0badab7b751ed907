/**
 * What `bin/sitesync.js` runs: the CLI with Ctrl-C handling. `npm run build`
 * bundles this file (scripts/bundle.mjs) into dist/bin/, one module per
 * command loaded on demand, so a start resolves a handful of files, not hundreds.
 */
import { setFlagsFromString } from 'node:v8';
import { EXIT } from './exit-code.js';
import { main } from './main.js';
import { processIo } from './process-io.js';

/**
 * A one-shot command builds data that lives until it exits (configuration,
 * listing, plan): every young-generation collection finds it alive, so V8
 * doubles its young generation up to 32 MB, which only raises the peak RSS
 * (`plan` of 10,000 sites: about -12 MB with this, no more CPU; 100,000: a
 * few % more CPU; docs/benchmarks.md). The growth factor is read at each growth, so
 * setting it here, before any, keeps the initial size. `serve` and `watch` run
 * for long and keep V8's default.
 */
if (!['serve', 'watch'].includes(process.argv[2] ?? '')) setFlagsFromString('--semi-space-growth-factor=1');

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
