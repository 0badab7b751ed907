/**
 * Bundles the CLI (src/cli/bin.ts) into dist/bin/ (or the directory given as
 * the first argument): `npm run build` runs it after tsc. Start-up time is
 * mostly module resolution (node --cpu-prof: hundreds of files of undici,
 * yaml, commander...), so the CLI ships as a few ES modules: one entry and one
 * chunk per command, loaded only when that command runs. Native and server
 * packages stay in node_modules, and so does ajv, whose runtime helpers the
 * compiled schema validator loads with require().
 */
import { build } from 'esbuild';

const outdir = process.argv[2] ?? 'dist/bin';

await build({
  entryPoints: { sitesync: 'src/cli/bin.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['better-sqlite3', 'fastify', '@fastify/formbody', 'ajv'],
  // commander and undici are CommonJS: their require() of node: modules needs a real require in ESM.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
