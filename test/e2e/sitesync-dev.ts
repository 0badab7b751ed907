/**
 * `bin/sitesync.js` for the sources, run with `node --import tsx`: lets a test
 * run shell scripts from examples/ against the current code without a build.
 */

import { main } from '../../src/cli/main.js';
import { processIo } from '../../src/cli/process-io.js';

process.exitCode = await main(process.argv.slice(2), processIo());
