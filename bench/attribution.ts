/**
 * Attribution benchmark (`npx tsx bench/attribution.ts`, part of `npm run
 * bench`): `sitesync plan` of 10,000 sites in a git repository (20 commits by
 * 5 authors since the baseline tag, 500 pending changes), the built CLI as a
 * whole process against a reference server in another process, with
 * attribution (one git blame of websites.yaml while the sites are listed)
 * and with `--no-attribution`, rounds interleaved. Goal: ≤ 1.2×.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, spawnServer, writeSitesConfig } from './support.js';

const KEY = 'bench-key-planner-0123456789'; // the key bench/planner.ts --server accepts
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/sitesync.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SITES = 10_000;

function git(dir: string, args: string[], env: Record<string, string> = {}): void {
  execFileSync('git', args, {
    cwd: dir,
    stdio: 'ignore',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...env },
  });
}

/** websites.yaml with every site, committed; then 20 commits turning email on for 25 sites each. */
function repository(dir: string): void {
  const file = writeSitesConfig(dir, SITES);
  const text = readFileSync(file, 'utf8').replace(/\n {4}email: true/g, '');
  rmSync(file);
  writeFileSync(join(dir, 'websites.yaml'), text);
  git(dir, ['init', '--quiet', '--initial-branch=main']);
  const commit = (n: number) => {
    const author = `Author ${n % 5}`;
    const date = `2026-11-${String(1 + (n % 28)).padStart(2, '0')}T10:00:00+00:00`;
    git(dir, ['add', '--all']);
    git(dir, ['commit', '--quiet', '--no-gpg-sign', '-m', `change ${n}`], {
      GIT_AUTHOR_NAME: author,
      GIT_AUTHOR_EMAIL: 'a@x.invalid',
      GIT_COMMITTER_NAME: author,
      GIT_COMMITTER_EMAIL: 'a@x.invalid',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    });
  };
  commit(0);
  git(dir, ['tag', 'sitesync-applied']);
  let current = text;
  for (let n = 1; n <= 20; n++) {
    for (let k = 0; k < 25; k++) {
      const site = `site-${(n - 1) * 25 + k + 1}.example.com\n`;
      current = current.replace(`domain: ${site}`, `domain: ${site}    email: true\n`);
    }
    writeFileSync(join(dir, 'websites.yaml'), current);
    commit(n);
  }
}

async function timed(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`sitesync ${args.join(' ')} exited with ${code}`);
  return performance.now() - start;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT });
  execFileSync(process.execPath, ['scripts/bundle.mjs'], { cwd: ROOT });
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-attribution-'));
  const { child, url } = await spawnServer(join(ROOT, 'bench/planner.ts'), [String(SITES)]);
  try {
    repository(dir);
    const env = { SITESYNC_URL: url, SITESYNC_API_KEY: KEY };
    const plan = ['plan', '--format', 'json', '--rate-limit', '1000000'];
    const samples = { with: [] as number[], without: [] as number[] };
    for (let round = 0; round <= ROUNDS; round++) {
      const withMs = await timed(plan, dir, env);
      const withoutMs = await timed([...plan, '--no-attribution'], dir, env);
      if (round === 0) continue; // warms the disk cache and the server
      samples.with.push(withMs);
      samples.without.push(withoutMs);
    }
    const [withMs, withoutMs] = [median(samples.with), median(samples.without)];
    const ratio = withMs / withoutMs;
    console.log(
      `| \`sitesync plan\`, ${SITES.toLocaleString('en')} sites, 500 pending changes from 20 commits | with attribution ${withMs.toFixed(0)} ms, without ${withoutMs.toFixed(0)} ms (median of ${ROUNDS}, interleaved) | ${ratio.toFixed(2)}× | goal ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'MISSED'} | load ${loadavg()[0]!.toFixed(1)} |`,
    );
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
