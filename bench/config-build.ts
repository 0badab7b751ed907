/**
 * Cold-process benchmark of what `plan` does on its own thread for 10,000
 * sites besides waiting for pages (issue 25, listing while parsing): the
 * configuration's parse, schema check and build, and the decoding of 100
 * listing pages of 100 sites. Each round is a fresh node process
 * (bench/config-phases.ts, bundled as scripts/bundle.mjs bundles the CLI,
 * with the CLI's V8 flag) that does every phase once, as `plan` does: the
 * code runs cold (interpreter, baseline JIT), which a warm loop
 * (bench/config.ts) never shows. Each phase's wall time and the process's CPU
 * time meanwhile (all threads: the garbage collector's too), medians.
 * The file is bench/cli.ts's (5% with `email: true`, defaults exclude_ips);
 * the pages are fetched once, as text, from a reference server seeded as
 * bench/cli.ts seeds it (bench/planner.ts --server).
 * `--base REF` also runs the source tree of a git revision (src/ and schemas/
 * from `git archive`), its rounds interleaved with this tree's so both see the
 * same machine: a before/after on a busy machine.
 * Run: npx tsx bench/config-build.ts [--base main]   (BENCH_ROUNDS, default 9)
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { median, spawnServer, writeSitesConfig } from './support.js';

const SITES = 10_000;
const PAGES = SITES / 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const KEY = 'bench-key-planner-0123456789'; // the key bench/planner.ts --server accepts
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PHASES = ['parse', 'schema', 'build', 'json', 'decode'] as const;
type Phase = (typeof PHASES)[number];
/** Each phase's wall time, and the process's CPU time (user + system, all threads) meanwhile. */
type Sample = Phase | `${Phase} cpu`;

/**
 * `root`'s bench/config-phases.ts bundled into `out` (a directory beside
 * node_modules, which the validator's require() needs), as scripts/bundle.mjs bundles the CLI.
 */
async function bundle(root: string, out: string): Promise<string> {
  const outfile = join(out, 'config-phases.mjs');
  await build({
    entryPoints: [join(root, 'bench/config-phases.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: ['ajv'],
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

async function round(script: string, file: string, pages: string): Promise<Record<Sample, number>> {
  // The young generation as the CLI keeps it for a one-shot command (src/cli/bin.ts): more scavenges than node's default.
  const proc = spawn(process.execPath, ['--semi-space-growth-factor=1', script, file, pages], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise<number | null>((resolve) => proc.once('close', resolve));
  if (code !== 0) throw new Error(`bench child exited with ${code}`);
  return JSON.parse(out) as Record<Sample, number>;
}

async function fetchPages(url: string): Promise<string[]> {
  const pages: string[] = [];
  for (let page = 1; page <= PAGES; page++) {
    const query = `sort_by=id&sort=asc&per_page=100&page=${page}`;
    const response = await fetch(`${url}/api/v1/websites?${query}`, { headers: { authorization: `Bearer ${KEY}` } });
    pages.push(await response.text());
  }
  return pages;
}

/** A directory in `dir` whose node_modules are this tree's. */
function besideModules(dir: string, name: string): string {
  const out = join(dir, name);
  mkdirSync(out);
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'));
  return out;
}

/** The source tree of `ref` (src, schemas, and this bench's child) in `dir`. */
function checkOut(ref: string, dir: string): string {
  const root = besideModules(dir, 'base');
  execFileSync('sh', ['-c', `git archive ${JSON.stringify(ref)} src schemas | tar -x -C ${JSON.stringify(root)}`], {
    cwd: ROOT,
  });
  mkdirSync(join(root, 'bench'));
  copyFileSync(join(ROOT, 'bench/config-phases.ts'), join(root, 'bench/config-phases.ts'));
  return root;
}

async function main(): Promise<void> {
  const baseAt = process.argv.indexOf('--base');
  const baseRef = baseAt === -1 ? undefined : process.argv[baseAt + 1];
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-config-build-'));
  const server = await spawnServer(join(ROOT, 'bench/planner.ts'), [String(SITES)]);
  try {
    writeFileSync(join(dir, 'pages.json'), JSON.stringify(await fetchPages(server.url)));
    server.child.kill('SIGTERM');
    const file = writeSitesConfig(dir, SITES);
    const trees = [
      {
        label: 'this tree',
        script: await bundle(ROOT, besideModules(dir, 'this')),
        samples: [] as Record<Sample, number>[],
      },
    ];
    if (baseRef !== undefined) {
      const root = checkOut(baseRef, dir);
      trees.unshift({ label: baseRef, script: await bundle(root, root), samples: [] });
    }
    for (let i = 0; i < ROUNDS; i++) {
      for (const tree of trees) tree.samples.push(await round(tree.script, file, join(dir, 'pages.json')));
    }
    const load = loadavg()
      .map((n) => n.toFixed(1))
      .join(' ');
    console.log(
      `${SITES.toLocaleString('en')} sites, ${PAGES} pages; ${ROUNDS} cold processes per tree, medians (ms); load ${load}\n`,
    );
    const row = (label: string, pick: (sample: Record<Sample, number>) => number) =>
      `| ${label} | ${trees.map((tree) => median(tree.samples.map(pick)).toFixed(1)).join(' | ')} |`;
    console.log(`| phase | ${trees.map((tree) => tree.label).join(' | ')} |`);
    console.log(`| --- |${' --- |'.repeat(trees.length)}`);
    for (const phase of PHASES) {
      console.log(row(phase, (sample) => sample[phase]));
      console.log(row(`${phase}, CPU`, (sample) => sample[`${phase} cpu`]));
    }
    console.log(row('schema + build + decode', (sample) => sample.schema + sample.build + sample.decode));
    console.log(row('same, CPU', (sample) => sample['schema cpu'] + sample['build cpu'] + sample['decode cpu']));
    // A collection that one phase's garbage brings on may land in the next phase: the whole is the fair total.
    const all = (sample: Record<Sample, number>, cpu: boolean) =>
      PHASES.reduce((sum, phase) => sum + sample[cpu ? (`${phase} cpu` as const) : phase], 0);
    console.log(row('all phases', (sample) => all(sample, false)));
    console.log(row('all phases, CPU', (sample) => all(sample, true)));
  } finally {
    server.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
