#!/usr/bin/env node
import { processIo } from '../dist/cli/io.js';
import { main } from '../dist/cli/main.js';

const controller = new AbortController();
let interrupts = 0;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupts += 1;
    // A second Ctrl-C means "now": leave at once.
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error(signal));
  });
}

process.exitCode = await main(process.argv.slice(2), processIo(controller.signal));
