// sitesync as shipped (issue 22, items 6 and 7): every `schema` name prints its
// schema from a build of the checkout and from the packed tarball installed
// without optional dependencies, where `serve` says in one line how to add
// the server packages, and what a CLI-only install needs stays small.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { SERVER_PACKAGES } from '../../src/cli/server-modules.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir, tempDirWith } from '../helpers/temp.js';
import { type BuiltCli, builtCli, type RunOptions, runCli } from './built-cli.js';
import { type PackedCli, packedCli } from './packed-cli.js';

const NAMES = ['websites', 'plan', 'plan-targets', 'validate', 'apply', 'apply-targets'];
const ROOT = join(import.meta.dirname, '../..');

let built: BuiltCli;
let packed: PackedCli;
beforeAll(async () => {
  built = await builtCli();
  packed = await packedCli('package-packed');
}, 120_000);

describe.each([
  ['the checkout build', () => built],
  ['the packed tarball', () => packed],
])('sitesync schema NAME from %s', (_, cli) => {
  test.each(NAMES)('%s prints the shipped schema', async (name) => {
    const result = await runCli(cli(), ['schema', name], { cwd: tempDir('schema'), env: {} });
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toBe(readFileSync(join(ROOT, 'schemas', `${name}.schema.json`), 'utf8'));
  });
});

describe('a CLI-only install (npm install --omit=optional)', () => {
  test('has no server package, and stays within 15 MB of node_modules', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
    };
    // What npm installs with --omit=optional (and no dev): the lockfile's entries not flagged dev or optional.
    const installed = Object.entries(lock.packages)
      .filter(([path]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path))
      .filter(([, entry]) => !entry.dev && !entry.optional && !entry.devOptional)
      .map(([path]) => path);
    for (const server of SERVER_PACKAGES) expect(installed).not.toContain(`node_modules/${server}`);
    const kilobytes = (path: string) => Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]);
    const total =
      installed.reduce((sum, path) => sum + kilobytes(join(ROOT, path)), 0) +
      kilobytes(join(packed.project, 'node_modules/sitesync'));
    expect(total).toBeLessThan(15 * 1024);
  });

  test('serve says in one line how to add the server packages', async () => {
    for (const args of [
      ['serve', '--port', '0'],
      ['serve', 'accounts', 'list', '--db', 'x.db'],
    ]) {
      const result = await runCli(packed, args, { cwd: tempDir('serve'), env: {} });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.err).toMatch(
        /^error: sitesync serve needs the server packages \(fastify, better-sqlite3, pg, sonic-boom, prom-client\); \S+ is not installed \(a CLI-only install, --omit=optional\): reinstall sitesync without --omit=optional to run the server\n$/,
      );
    }
  });

  test('watch runs without prom-client, and --metrics-addr says in one line that it needs it', async () => {
    const refused = await runCli(packed, ['watch', '--metrics-addr', '127.0.0.1:0'], {
      cwd: tempDir('watch'),
      env: {},
    });
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      'error: --metrics-addr needs the package prom-client, which a CLI-only install (--omit=optional) leaves out: install it beside sitesync (npm install --save-dev prom-client@15)\n',
    );
    const server = await startTestServer();
    try {
      const dir = tempDirWith('watch', { 'websites.yaml': 'version: 1\nwebsites:\n  - domain: a.example\n' });
      const control: NonNullable<RunOptions['control']> = {};
      const watched = await runCli(packed, ['watch', '--log-format', 'json'], {
        cwd: dir,
        env: { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key },
        control,
        onStderr: (chunk) => {
          if (chunk.includes('"msg":"checked"')) control.signal?.('SIGTERM');
        },
      });
      expect(watched.code, watched.err).toBe(0);
      expect(watched.err).toContain('"drift":1');
    } finally {
      await server.close();
    }
  });

  test('the library loads without them', () => {
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('sitesync'); console.log(typeof m.plan, typeof m.startServer)",
      ],
      {
        cwd: packed.project,
        encoding: 'utf8',
      },
    );
    expect(loaded).toBe('function function\n');
  });
});
