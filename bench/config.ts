/**
 * Config benchmark: load (parse + schema + resolve) and export of large
 * configurations. Bounded: a few sizes, a few rounds each, well under a minute.
 * Run: npx tsx bench/config.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportConfig } from '../src/config/export.js';
import { loadConfig } from '../src/config/index.js';
import type { LiveWebsite } from '../src/model/website.js';
import { median } from './support.js';

const SIZES = [100, 1_000, 10_000];
const ROUNDS = 5;

function liveSites(count: number): LiveWebsite[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    domain: `site-${i}.product-${i % 17}.example`,
    settings: {
      privacy: i % 10 === 0 ? 'password' : i % 3 === 0 ? 'public' : 'private',
      email: i % 4 === 0,
      excludeBots: i % 7 !== 0,
      excludeParams: i % 2 === 0 ? ['fbclid', 'gclid'] : ['utm_source'],
      excludeIps: i % 5 === 0 ? ['203.0.113.0/24', `198.51.100.${i % 250}`, '2001:db8::/32'] : [],
      favorite: i % 50 === 0,
    },
    hasPassword: i % 10 === 0,
  }));
}

function time(run: () => void): number {
  run(); // warm-up: JIT and the schema compilation are not what is measured
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-config-'));
try {
  console.log('sites    bytes      export ms  load ms  load sites/s');
  for (const size of SIZES) {
    const live = liveSites(size);
    const env = Object.fromEntries(
      live
        .filter((site) => site.hasPassword)
        .map((site) => [`SITESYNC_PASSWORD_${site.domain.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`, 'bench-password']),
    );
    let text = '';
    const exportMs = time(() => {
      text = exportConfig(live);
    });
    writeFileSync(join(dir, 'websites.yaml'), text);
    let websites = 0;
    const loadStart = performance.now();
    {
      const result = await loadConfig({ files: [], cwd: dir, env });
      if (result.errors.length > 0) throw new Error(`bench config invalid: ${result.errors[0]!.message}`);
      websites = result.state!.websites.length;
    }
    const loadMs = performance.now() - loadStart;
    if (websites !== size) throw new Error(`loaded ${websites} of ${size} sites`);
    const rate = Math.round((size / loadMs) * 1000);
    console.log(
      `${String(size).padEnd(8)} ${String(text.length).padEnd(10)} ${exportMs.toFixed(1).padStart(9)}  ${loadMs.toFixed(1).padStart(7)}  ${String(rate).padStart(12)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
