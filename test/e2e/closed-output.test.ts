// The reader of sitesync's output goes away (`| head`, `| grep -q`, `less` then q): the
// real bin, as a child process whose stdout or stderr pipe the test closes on an event
// (a chunk, a log line), never after a delay. No stack trace, the exit code
// docs/exit-codes.md promises ("A closed output"); an apply that notices it stops as on
// Ctrl-C (journal and lock as after an interruption); serve and watch keep running.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { domainsInDb } from '../apply/support.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type BuiltCli, builtCli, type ChildRun, type RunOptions, runCli } from './built-cli.js';
import { startLatencyProxy } from './latency-proxy.js';
import { planThenApply } from './plan-then-apply.js';

const configOf = (domains: readonly string[]) =>
  `version: 1\nwebsites:\n${domains.map((domain) => `  - domain: ${domain}\n`).join('')}`;
const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}.example`);
/** Node's report of an unhandled 'error' event (the defect), or any other crash. */
const STACK = /Unhandled 'error' event|\n\s+at |internal error/;

/** `reached` settles once `predicate` holds for the text seen so far on a stream (`seen()`). */
function waitFor(predicate: (seen: string) => boolean) {
  let seen = '';
  let reach = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return {
    see: (chunk: string) => {
      seen += chunk;
      if (predicate(seen)) reach();
    },
    seen: () => seen,
    reached,
  };
}

let cli: BuiltCli;
beforeAll(async () => {
  cli = await builtCli();
}, 120_000);

describe('a one-shot command whose reader goes away', () => {
  test('plan --format json | head -c 300: no stack trace, the plan’s own exit code', async () => {
    const server = await startTestServer();
    try {
      // 2,000 creates: a document far larger than a pipe's buffer, so the write is still going when the reader leaves.
      const dir = tempDir('closed-output');
      writeFileSync(join(dir, 'websites.yaml'), configOf(names('site-', 2_000)));
      const control: NonNullable<RunOptions['control']> = {};
      const run = await runCli(cli, ['plan', '--format', 'json', '--detailed-exitcode'], {
        cwd: dir,
        env: { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key },
        control,
        onStdout: () => control.close?.('stdout'),
      });
      expect(run.err).not.toMatch(STACK);
      expect(run.err).toBe('');
      expect(run.signal).toBeNull();
      expect(run.code).toBe(2); // the plan was made: its own code (changes), not 141
      expect(run.out.length).toBeLessThan(200_000); // the reader really left early
    } finally {
      await server.close();
    }
  });
});

describe('apply whose reader goes away', () => {
  const DOMAINS = names('a-', 6);

  interface ApplySetup {
    /** Sees each request as it reaches the proxy, and may hold it until the promise it returns settles. */
    gate?: (method: string) => Promise<void> | undefined;
    /** The run's options, given its control (to close a pipe on an event). */
    options: (control: NonNullable<RunOptions['control']>) => Partial<RunOptions>;
    args?: string[];
    domains?: readonly string[];
  }

  /** A saved plan of creates (six by default), applied one at a time through a proxy. */
  async function applyWith({ gate = () => undefined, options, args = [], domains = DOMAINS }: ApplySetup) {
    const server = await startTestServer();
    const proxy = await startLatencyProxy(server.url, 0, async ({ method }) => {
      await gate(method);
      return 'forward' as const;
    });
    const dir = tempDir('closed-output-apply');
    writeFileSync(join(dir, 'websites.yaml'), configOf(domains));
    const env = { SITESYNC_URL: proxy.url, SITESYNC_API_KEY: server.key };
    try {
      const control: NonNullable<RunOptions['control']> = {};
      const applied = await planThenApply(cli, dir, env, args, { control, ...options(control) });
      await proxy.idle();
      return { ...applied, live: await domainsInDb(server) };
    } finally {
      await proxy.close();
      await server.close();
    }
  }

  test('stdout closed after the plan is shown: the writes finish, the summary is dropped, exit 0', async () => {
    // The writes wait until the reader has gone, so the summary is surely written to a closed pipe.
    let closed = () => {};
    const readerGone = new Promise<void>((resolve) => (closed = resolve));
    const { run, journal, live, locked } = await applyWith({
      gate: (method) => (method === 'GET' ? undefined : readerGone),
      options: (control) => ({
        onStdout: () => {
          control.close?.('stdout');
          closed();
        },
      }),
    });
    expect(run.err).not.toMatch(STACK);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(live).toEqual([...DOMAINS].sort());
    expect(journal.filter((entry) => entry.event === 'succeeded')).toHaveLength(DOMAINS.length);
    expect(journal.at(-1)).toMatchObject({ event: 'end', interrupted: false });
    expect(locked).toBe(false);
  });

  test('`apply plan.json | head -3`: the plan is still being written when stdout closes: stops as on Ctrl-C, exit 141', async () => {
    // 2,000 creates: the plan shown first outgrows the pipe's buffer, so its write is still going when
    // the reader leaves. The client sends at most 60 requests a minute: most changes are surely left.
    const domains = names('b-', 2_000);
    const { run, journal, live, locked } = await applyWith({
      domains,
      options: (control) => ({ onStdout: () => control.close?.('stdout') }),
    });
    expect(run.signal).toBeNull();
    expect(run.err).not.toMatch(STACK);
    expect(run.err).toContain('sitesync: stdout closed by its reader, so the run stopped as on Ctrl-C (exit 141)');
    expect(run.code).toBe(141);
    expect(live.length).toBeLessThan(100);
    // Whether it stopped before its first write or after a few, the journal and the service agree.
    const succeeded = journal.filter((entry) => entry.event === 'succeeded').map((entry) => entry.domain);
    expect(succeeded.sort()).toEqual(live);
    if (journal.length > 0) expect(journal.at(-1)).toMatchObject({ event: 'end', interrupted: true });
    expect(locked).toBe(false);
  });

  test('stderr closed mid-apply (`2>&1 | head`): stops as on Ctrl-C, journal ended, lock released, exit 141', async () => {
    // Progress goes to stderr, one line per change. The reader leaves at the first; the second
    // write is held until then, so the second line meets a closed pipe. The third write then
    // waits a minute for the rate limit (one listing + two writes a minute): only an interruption ends that wait.
    let closed = () => {};
    const readerGone = new Promise<void>((resolve) => (closed = resolve));
    let writes = 0;
    const firstLine = waitFor((seen) => seen.includes('\n'));
    const { run, journal, live, locked } = await applyWith({
      gate: (method) => (method !== 'GET' && ++writes === 2 ? readerGone : undefined),
      options: (control) => {
        void firstLine.reached.then(() => {
          control.close?.('stderr');
          closed();
        });
        return { onStderr: firstLine.see };
      },
      args: ['--rate-limit', '3'],
    });
    // stderr is closed, so a crash would only show in the exit code and the journal.
    expect(run.signal).toBeNull();
    expect(run.code, run.out).toBe(141);
    // The summary still reaches stdout, which is open.
    expect(run.out).toMatch(/^applied 2 of 6 changes; 4 skipped/m);
    expect(run.out).toMatch(/^interrupted: 4 changes not started/m);
    expect(live).toEqual(DOMAINS.slice(0, 2).sort());
    const succeeded = journal.filter((entry) => entry.event === 'succeeded').map((entry) => entry.domain);
    const skipped = journal.filter((entry) => entry.event === 'skipped').map((entry) => entry.domain);
    expect([...succeeded, ...skipped].sort()).toEqual([...DOMAINS].sort());
    expect(succeeded.sort()).toEqual(live);
    expect(journal.at(-1)).toMatchObject({ event: 'end', interrupted: true });
    expect(locked).toBe(false);
  }, 60_000);
});

describe('serve and watch whose log reader goes away keep running', () => {
  test('serve: requests are still answered after stderr closed; SIGTERM stops it as usual (exit 0)', async () => {
    const dir = tempDir('closed-output-serve');
    const key = 'closed-output-key-0123456789';
    const control: NonNullable<RunOptions['control']> = {};
    const LISTENING = /listening on (\S+?),/;
    const listening = waitFor((seen) => LISTENING.test(seen));
    const stopped: Promise<ChildRun> = runCli(cli, ['serve', '--port', '0', '--db', join(dir, 'serve.db')], {
      cwd: dir,
      env: { SITESYNC_SERVE_KEYS: key },
      control,
      onStderr: listening.see,
    });
    await Promise.race([listening.reached, stopped]);
    control.close?.('stderr');
    const url = LISTENING.exec(listening.seen())?.[1];
    const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
    // Each answered request logs a line to the closed stderr; the next request proves the server outlived it.
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${url}/api/v1/websites`, { headers });
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    }
    control.signal?.('SIGTERM');
    const run = await stopped;
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
  });

  test('watch: checks go on after stderr closed; SIGTERM stops it as usual (exit 0)', async () => {
    const server = await startTestServer();
    // A check starts with the listing's first page: counting them counts checks.
    let checks = 0;
    let afterClose: number | undefined;
    let checkedTwiceMore = () => {};
    const outlived = new Promise<void>((resolve) => (checkedTwiceMore = resolve));
    const proxy = await startLatencyProxy(server.url, 0, (request) => {
      const page = new URL(request.url, 'http://proxy').searchParams.get('page');
      if (request.method === 'GET' && request.url.startsWith('/api/v1/websites') && (page ?? '1') === '1') {
        checks += 1;
        if (afterClose !== undefined && checks >= afterClose + 2) checkedTwiceMore();
      }
      return 'forward';
    });
    const dir = tempDir('closed-output-watch');
    writeFileSync(join(dir, 'websites.yaml'), configOf(['w.example']));
    const control: NonNullable<RunOptions['control']> = {};
    const checked = waitFor((seen) => seen.includes('"msg":"checked"'));
    try {
      const stopped = runCli(cli, ['watch', '--interval', '1s', '--log-format', 'json', '--no-baseline'], {
        cwd: dir,
        env: { SITESYNC_URL: proxy.url, SITESYNC_API_KEY: server.key },
        control,
        onStderr: checked.see,
      });
      await Promise.race([checked.reached, stopped]);
      control.close?.('stderr');
      afterClose = checks;
      // The next check logs `checked` to the closed pipe; the one after proves the process outlived it.
      const outcome = await Promise.race([outlived.then(() => 'alive' as const), stopped]);
      expect(outcome).toBe('alive');
      control.signal?.('SIGTERM');
      const run = await stopped;
      expect(run.signal).toBeNull();
      expect(run.code).toBe(0);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});
