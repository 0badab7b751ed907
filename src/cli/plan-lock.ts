/**
 * One apply per saved plan at a time: `apply plan.json` holds `plan.json.lock`
 * (created exclusively, holding the pid) while it runs, so a second apply of
 * the same file started meanwhile is refused instead of racing the first. A
 * lock left by a killed process (its pid is gone) is taken over. Applies of the
 * same plan from different machines are not covered: the staleness check then
 * finds the sites already applied or moved, and so does a plan in a read-only
 * directory, where no lock can be made.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { errnoInWords } from '../model/errno.js';
import { SitesyncError } from '../model/errors.js';

export interface PlanLock {
  release(): void;
}

export function lockPlanFile(planFile: string): PlanLock {
  const path = `${planFile}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } catch (error) {
        rmSync(path, { force: true }); // a lock naming no process (a full disk) would look taken over
        throw new SitesyncError('usage', `cannot create ${path}: ${errnoInWords(error)}`);
      } finally {
        closeSync(fd);
      }
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A plan in a read-only place (a mounted artifact) is still applicable; only the guard is lost.
      if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') return { release: () => {} };
      if (error instanceof SitesyncError) throw error;
      if (code !== 'EEXIST') throw new SitesyncError('usage', `cannot create ${path}: ${errnoInWords(error)}`);
      const holder = lockHolder(path);
      if (holder !== undefined && isAlive(holder)) {
        throw new SitesyncError(
          'stale_plan',
          `${planFile} is being applied by another sitesync process (pid ${holder}); wait for it to finish, then re-run to see what is left`,
        );
      }
      rmSync(path, { force: true }); // left by a process that no longer runs
    }
  }
  throw new SitesyncError('usage', `cannot lock ${planFile}: ${path} keeps reappearing`);
}

function lockHolder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs (EPERM: it runs as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
