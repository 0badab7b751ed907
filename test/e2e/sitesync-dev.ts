/**
 * `bin/sitesync.js` for the sources, run with `node --import tsx`: lets a test
 * run shell scripts from examples/ against the current code without a build.
 */
import { processIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2), processIo());
