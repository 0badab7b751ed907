#!/usr/bin/env node
// The CLI as `npm run build` bundles it (src/cli/bin.ts → dist/bin/sitesync.js).
import '../dist/bin/sitesync.js';
