/**
 * kill -9 during a heal, then a restart: `sitesync watch` (the real bin, a
 * child process) converges with no duplicate website, whether the write held
 * at the kill reached the service after the process died or never did; the
 * restarted watch exits 0 on SIGTERM. Kill points are events: the latency
 * proxy holds the third create as it arrives, the child is killed and has
 * exited, then the create is forwarded or dropped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { domainsInDb } from '../apply/support.js';
import { type BuiltCli, builtCli, type ChildRun, type RunOptions, runCli } from '../e2e/built-cli.js';
import { startLatencyProxy } from '../e2e/latency-proxy.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const DOMAINS = Array.from({ length: 6 }, (_, i) => `heal${i}.example`);
const CONFIG = `version: 1\nwebsites:\n${DOMAINS.map((domain) => `  - domain: ${domain}\n`).join('')}`;
const ARGS = ['watch', '--self-heal', 'drift', '--max-heal', '10', '--interval', '1s', '--log-format', 'json'];

describe('watch killed during a heal', () => {
  let cli: BuiltCli;
  beforeAll(async () => {
    cli = await builtCli();
  }, 120_000);

  for (const held of ['forward', 'drop'] as const) {
    it(`converges after a restart without duplicates (held create ${held === 'forward' ? 'committed after the kill' : 'lost'})`, async () => {
      const server = await startTestServer();
      const dir = tempDir('watch-kill');
      writeFileSync(join(dir, 'websites.yaml'), CONFIG);
      const control: NonNullable<RunOptions['control']> = {};
      let creates = 0;
      let killed: Promise<ChildRun> | undefined;
      const proxy = await startLatencyProxy(server.url, 1, async (request) => {
        if (request.method !== 'POST' || ++creates !== 3 || killed === undefined) return 'forward';
        control.signal?.('SIGKILL');
        await killed;
        return held;
      });
      try {
        const env = { SITESYNC_URL: proxy.url, SITESYNC_API_KEY: server.key };
        const journal = ['--journal', join(dir, 'heal.jsonl')];
        killed = runCli(cli, [...ARGS, ...journal], { cwd: dir, env, control });
        expect((await killed).signal).toBe('SIGKILL');
        await proxy.idle();
        expect((await domainsInDb(server)).length).toBe(held === 'forward' ? 3 : 2);

        // Restarted: stop it (SIGTERM) once a check finds everything in sync.
        const restart = runCli(cli, [...ARGS, ...journal], {
          cwd: dir,
          env,
          control,
          onStderr: (chunk) => {
            for (const line of chunk.split('\n').filter(Boolean)) {
              const entry = JSON.parse(line) as { msg: string; in_sync?: number; drift?: number };
              if (entry.msg === 'checked' && entry.in_sync === DOMAINS.length) control.signal?.('SIGTERM');
            }
          },
        });
        const stopped = await restart;
        expect(stopped.code, stopped.err).toBe(0);
        expect(stopped.err).toContain('"msg":"stopped"');
        const domains = await domainsInDb(server);
        expect(domains).toEqual([...DOMAINS].sort());
        // Both runs journaled their heals; each create succeeded exactly once across them (the held one maybe unjournaled).
        const entries = readFileSync(join(dir, 'heal.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        const succeeded = entries.filter((entry) => entry.event === 'succeeded').map((entry) => entry.domain);
        expect(new Set(succeeded).size).toBe(succeeded.length);
      } finally {
        await proxy.close();
        await server.close();
      }
    }, 60_000);
  }
});
