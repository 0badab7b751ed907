/**
 * Runs examples/cron/drift-check.sh in a workspace as cron would (its own PATH,
 * the development CLI through tsx as SITESYNC), for the workflow tests.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Workspace } from '../cli/apply-support.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export async function runDriftCheck(
  ws: Workspace,
  baseEnv: Record<string, string> = ws.env,
  overrides: Record<string, string> = {},
): Promise<{ code: number; stdout: string }> {
  const env = {
    ...baseEnv,
    PATH: process.env.PATH ?? '',
    // tsx by path: the script runs in the workspace, where `tsx` would not resolve.
    SITESYNC: `${process.execPath} --import ${join(ROOT, 'node_modules/tsx/dist/loader.mjs')} ${join(ROOT, 'test/e2e/sitesync-dev.ts')}`,
    SITESYNC_REPORT_DIR: ws.dir,
    ...overrides,
  };
  try {
    // Both streams: cron mails whatever the job writes to either.
    const { stdout, stderr } = await run('sh', [join(ROOT, 'examples/cron/drift-check.sh')], { cwd: ws.dir, env });
    return { code: 0, stdout: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout + failed.stderr };
  }
}
