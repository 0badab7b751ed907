/**
 * The processes of a fleet benchmark: the simulator in a child of its own
 * (its CPU is not the watch's), `sitesync watch` as the built CLI in another,
 * read through its JSON log lines, and what /proc says of a process (CPU
 * seconds, resident and peak memory).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface SimulatorStats {
  listings: number[][];
  writes: number;
  doubleWrites: string[];
  throttled: number;
}

export interface SimulatorProcess {
  env: Record<string, string>;
  drift(count: number): Promise<number[]>;
  stats(): Promise<SimulatorStats>;
  stop(): Promise<void>;
}

/** The simulator (bench/fleet/simulator-main.ts) with its configuration written into `dir`. */
export async function startSimulator(
  dir: string,
  options: { installations: number; websites: number; latencyMs: number },
): Promise<SimulatorProcess> {
  const child = fork(join(ROOT, 'bench/fleet/simulator-main.ts'), [JSON.stringify({ dir, ...options })], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(message: object): Promise<T> =>
    new Promise((resolve) => {
      child.once('message', (answer) => resolve(answer as T));
      child.send(message);
    });
  const ready = await new Promise<{ env: Record<string, string> }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { env: Record<string, string> }));
    child.once('exit', (code) => reject(new Error(`the simulator exited with ${code}`)));
  });
  return {
    env: ready.env,
    drift: (count) => ask<number[]>({ drift: count }),
    stats: () => ask<SimulatorStats>({ stats: true }),
    stop: () => ask<void>({ stop: true }).then(() => undefined),
  };
}

export interface WatchProcess {
  child: ChildProcess;
  pid: number;
  lines: Record<string, unknown>[];
  /** Resolves with the first log line (written or to come) that `match` accepts. */
  line(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<void>;
}

/** `sitesync watch` from the build (npm run build), logging JSON lines. */
export function startWatch(args: readonly string[], cwd: string, env: Record<string, string>): WatchProcess {
  const child = spawn(process.execPath, [join(ROOT, 'bin/sitesync.js'), 'watch', '--log-format', 'json', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = jsonLines((line) => {
    if (line.receivedAt === undefined) process.stderr.write(`watch: ${String(line.msg)}\n`);
  });
  child.stderr?.on('data', (chunk: Buffer) => log.feed(String(chunk)));
  return {
    child,
    pid: child.pid ?? 0,
    lines: log.lines,
    line: log.line,
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
  };
}

export interface JsonLines {
  lines: Record<string, unknown>[];
  /** Takes output as it comes (lines split across chunks are joined). */
  feed(chunk: string): void;
  /** Resolves with the first line (already seen or to come) that `match` accepts. */
  line(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/**
 * A process's JSON log lines as they come, each stamped `receivedAt`; a line
 * that is not JSON (an error before logging started) is kept as `{ msg }`
 * without the stamp, and shown to `onOther`.
 */
export function jsonLines(onOther: (line: Record<string, unknown>) => void = () => {}): JsonLines {
  const lines: Record<string, unknown>[] = [];
  const waiting: {
    match: (line: Record<string, unknown>) => boolean;
    found: (line: Record<string, unknown>) => void;
  }[] = [];
  let partial = '';
  return {
    lines,
    feed(chunk) {
      const complete = (partial + chunk).split('\n');
      partial = complete.pop() ?? '';
      for (const each of complete.filter(Boolean)) {
        let line: Record<string, unknown>;
        try {
          line = { ...(JSON.parse(each) as Record<string, unknown>), receivedAt: Date.now() };
        } catch {
          line = { msg: each };
          onOther(line);
        }
        lines.push(line);
        for (const wait of waiting.filter((one) => one.match(line))) {
          waiting.splice(waiting.indexOf(wait), 1);
          wait.found(line);
        }
      }
    },
    line: (match) =>
      new Promise((found) => {
        const already = lines.find(match);
        if (already !== undefined) found(already);
        else waiting.push({ match, found });
      }),
  };
}

/** CPU seconds (user + system) a process has used. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 a second)
}

/** Resident memory now and at its peak, in MB. */
export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}
