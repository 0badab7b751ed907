/**
 * Bundles the CLI (src/cli/bin.ts) into dist/bin/ (or the directory given as
 * the first argument): `npm run build` runs it after tsc. Start-up time is
 * mostly module resolution (node --cpu-prof: hundreds of files of undici,
 * yaml, commander...), so the CLI ships as a few ES modules: one entry and one
 * chunk per command, loaded only when that command runs. The server's packages
 * stay in node_modules (optionalDependencies: a CLI-only install leaves them out,
 * and only `serve` imports them), and so does ajv, whose runtime helpers the
 * compiled schema validator loads with require().
 */
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const outdir = process.argv[2] ?? 'dist/bin';
// Chunks are named by content hash: without this, every build would leave the previous ones in the package.
rmSync(outdir, { recursive: true, force: true });

await build({
  entryPoints: { sitesync: 'src/cli/bin.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: ['better-sqlite3', 'fastify', '@fastify/*', 'pg', 'pg-native', 'sonic-boom', 'prom-client', 'ajv'],
  // commander and undici are CommonJS: their require() of node: modules needs a real require in ESM.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
