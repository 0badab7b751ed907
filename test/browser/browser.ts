/**
 * What the browser suite drives: Debian's Chromium through playwright-core
 * (nothing downloaded; offline flags; Playwright gives each launch a fresh
 * --user-data-dir in the run's temporary directory and removes it), `sitesync
 * watch` as a child process from the sources, a watch on what a page does
 * wrong (console errors, script errors, failed requests, error answers),
 * axe-core's accessibility check and screenshots into artifacts/browser/
 * (gitignored, emptied at the start of each run).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { jsonLines } from '../../bench/fleet/processes.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'artifacts', 'browser');

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WatchProcess {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Every watch child process started and not stopped yet: `stopWatchProcesses` ends them (after a failed start too). */
const running = new Set<ChildProcess>();

/**
 * `sitesync watch --metrics-addr 127.0.0.1:0 --log-format json ARGS` in `cwd`;
 * resolves once its log says the first cycle has been checked.
 */
export async function startWatchProcess(
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<WatchProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      resolve(ROOT, 'src/cli/bin.ts'),
      'watch',
      '--metrics-addr',
      '127.0.0.1:0',
      '--log-format',
      'json',
      ...args,
    ],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '', TMPDIR: process.env.TMPDIR ?? '/tmp', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  running.add(child);
  const log = jsonLines();
  child.stderr?.on('data', (chunk: Buffer) => log.feed(String(chunk)));
  const stderr = () => log.lines.map((line) => JSON.stringify(line)).join('\n');
  const exited = new Promise<number | null>((done) =>
    child.on('close', (code) => {
      running.delete(child);
      done(code);
    }),
  );
  const failed = exited.then((code) => {
    throw new Error(`sitesync watch exited (${code}) before its first cycle was checked: ${stderr()}`);
  });
  const serving = await Promise.race([
    log.line((line) => String(line.msg).startsWith('serving ') && typeof line.url === 'string'),
    failed,
  ]);
  await Promise.race([log.line((line) => line.msg === 'cycle checked'), failed]);
  return {
    url: String(serving.url),
    child,
    stderr,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Ends every watch child process still running (SIGKILL): for afterAll, whatever happened before. */
export function stopWatchProcesses(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Everything a page did wrong since it was watched: console errors, uncaught errors, failed requests, 4xx/5xx answers. */
export function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return problems;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's serious and critical violations on the page (WCAG 2.x A and AA
 * rules and best practices). Evaluated through the DevTools protocol, which
 * the page's Content-Security-Policy (no script at all) does not govern.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  })) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

/** A full-page screenshot into artifacts/browser/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
