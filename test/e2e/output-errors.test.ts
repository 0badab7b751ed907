// Writing sitesync's output fails for a reason other than a closed pipe: /dev/full
// (every write fails with ENOSPC, as a full disk behind `> out.txt` does) opened as
// the child's stdout or stderr, or given as a file to write. One readable line on the
// other stream, exit 1, no stack trace; an apply stops as on Ctrl-C (journal and
// lock as after an interruption); watch keeps running (docs/exit-codes.md, "A failed output").
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { domainsInDb } from '../apply/support.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type BuiltCli, builtCli, type RunOptions, runCli } from './built-cli.js';
import { startLatencyProxy } from './latency-proxy.js';
import { planThenApply } from './plan-then-apply.js';

const configOf = (domains: readonly string[]) =>
  `version: 1\nwebsites:\n${domains.map((domain) => `  - domain: ${domain}\n`).join('')}`;
const DOMAINS = Array.from({ length: 6 }, (_, i) => `full-${i}.example`);
/** Node's report of an unhandled 'error' event (the defect), or any other crash. */
const STACK = /Unhandled 'error' event|\n\s+at |internal error/;
const FULL_STDOUT = 'sitesync: cannot write to stdout: no space left on device (ENOSPC)\n';

let cli: BuiltCli;
beforeAll(async () => {
  cli = await builtCli();
}, 120_000);

/** A fresh descriptor on /dev/full per run, closed after it. */
const opened: number[] = [];
const devFull = () => {
  const fd = openSync('/dev/full', 'w');
  opened.push(fd);
  return fd;
};
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd);
});

describe('stdout or stderr on a full device', () => {
  test('plan > /dev/full: one line on stderr, exit 1, no stack trace', async () => {
    const server = await startTestServer();
    try {
      const dir = tempDir('output-errors-plan');
      writeFileSync(join(dir, 'websites.yaml'), configOf(DOMAINS));
      const run = await runCli(cli, ['plan', '--detailed-exitcode'], {
        cwd: dir,
        env: { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key },
        stdoutFd: devFull(),
      });
      expect(run.err).not.toMatch(STACK);
      expect(run.err).toBe(FULL_STDOUT);
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1); // not the plan's 2: the plan never reached its reader
    } finally {
      await server.close();
    }
  });

  /** A saved plan of six creates, applied one at a time with the given stdout/stderr. */
  async function applyWith(options: Partial<RunOptions>) {
    const server = await startTestServer();
    const dir = tempDir('output-errors-apply');
    writeFileSync(join(dir, 'websites.yaml'), configOf(DOMAINS));
    try {
      const env = { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key };
      const applied = await planThenApply(cli, dir, env, [], options);
      return { ...applied, live: await domainsInDb(server) };
    } finally {
      await server.close();
    }
  }

  /** Whenever the run stopped, the journal says exactly what reached the service, and it was ended. */
  function expectJournalMatches({ journal, live }: Awaited<ReturnType<typeof applyWith>>) {
    const succeeded = journal.filter((entry) => entry.event === 'succeeded').map((entry) => entry.domain);
    expect(succeeded.sort()).toEqual(live);
    if (journal.length > 0) expect(journal.at(-1)).toMatchObject({ event: 'end' });
  }

  test('apply > /dev/full: stops as on Ctrl-C, journal matches the service, lock released, exit 1', async () => {
    const applied = await applyWith({ stdoutFd: devFull() });
    expect(applied.run.err).not.toMatch(STACK);
    expect(applied.run.err.startsWith(FULL_STDOUT)).toBe(true);
    expect(applied.run.signal).toBeNull();
    expect(applied.run.code).toBe(1);
    expectJournalMatches(applied);
    expect(applied.locked).toBe(false);
  });

  test('apply with stdout and stderr both on /dev/full: exit 1, journal matches the service, lock released', async () => {
    const applied = await applyWith({ stdoutFd: devFull(), stderrFd: devFull() });
    expect(applied.run.signal).toBeNull();
    expect(applied.run.code).toBe(1);
    expectJournalMatches(applied);
    // A crash would exit 1 too, silently here: the lock it leaves behind tells the orderly stop apart.
    expect(applied.locked).toBe(false);
  });

  test('watch logging to /dev/full: says so once on stdout and keeps checking; SIGTERM exits 0', async () => {
    const server = await startTestServer();
    let checks = 0;
    let checkedTwice = () => {};
    const outlived = new Promise<void>((resolve) => (checkedTwice = resolve));
    const proxy = await startLatencyProxy(server.url, 0, (request) => {
      const page = new URL(request.url, 'http://proxy').searchParams.get('page');
      if (request.method === 'GET' && request.url.startsWith('/api/v1/websites') && (page ?? '1') === '1') {
        // Every check logs at least one line to the full stderr: a third check outlived two failures.
        if (++checks === 3) checkedTwice();
      }
      return 'forward';
    });
    const dir = tempDir('output-errors-watch');
    writeFileSync(join(dir, 'websites.yaml'), configOf(['w.example']));
    const control: NonNullable<RunOptions['control']> = {};
    try {
      const stopped = runCli(cli, ['watch', '--interval', '1s', '--log-format', 'json', '--no-baseline'], {
        cwd: dir,
        env: { SITESYNC_URL: proxy.url, SITESYNC_API_KEY: server.key },
        control,
        stderrFd: devFull(),
      });
      const outcome = await Promise.race([outlived.then(() => 'alive' as const), stopped]);
      expect(outcome).toBe('alive');
      control.signal?.('SIGTERM');
      const run = await stopped;
      expect(run.signal).toBeNull();
      expect(run.out).toBe('sitesync: cannot write to stderr: no space left on device (ENOSPC)\n');
      expect(run.code).toBe(0);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});

describe('files on a full device', () => {
  test('apply --journal /dev/full: nothing is written to the service, one line naming the journal, exit 1', async () => {
    const server = await startTestServer();
    try {
      const dir = tempDir('output-errors-journal');
      writeFileSync(join(dir, 'websites.yaml'), configOf(DOMAINS));
      const env = { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key };
      expect((await runCli(cli, ['plan', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
      const run = await runCli(cli, ['apply', 'plan.json', '--journal', '/dev/full'], { cwd: dir, env });
      expect(run.err).not.toMatch(STACK);
      expect(run.err).toBe('error: cannot write the journal /dev/full: no space left on device (ENOSPC)\n');
      expect(run.code).toBe(1);
      expect(await domainsInDb(server)).toEqual([]);
      expect(existsSync(join(dir, 'plan.json.lock'))).toBe(false);
    } finally {
      await server.close();
    }
  });
});
