/**
 * A throwaway PostgreSQL 15 cluster: initdb as the `postgres` user (it refuses
 * root) in a `sitesync-pg-*` temporary directory (TMPDIR's, when the postgres
 * user can enter it), started on a free loopback
 * port with trust authentication; `stop()` stops it and removes the directory.
 * Used by the vitest PostgreSQL project (postgres.ts) and by `npm run
 * bench:server`; no vitest import.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://postgres@127.0.0.1:PORT — the throwaway cluster's superuser, no password (trust). */
    postgresUrl: string;
  }
}

/** A loopback port free right now (the caller binds it soon after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function asPostgres(command: string, args: string[]): void {
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args], { stdio: 'pipe' });
  } catch (error) {
    const output = error as { stderr?: Buffer; stdout?: Buffer; message: string };
    const detail = `${output.stderr?.toString() ?? ''}${output.stdout?.toString() ?? ''}`.trim() || output.message;
    throw new Error(`PostgreSQL test cluster: ${command} failed: ${detail}`);
  }
}

/**
 * Where the cluster's directory goes: TMPDIR when the postgres user can enter
 * it, else /tmp or /var/tmp (a TMPDIR of mode 0700, or under a private home,
 * would make initdb fail: issue 38).
 */
function parentForPostgres(): string {
  const candidates = [tmpdir(), '/tmp', '/var/tmp'];
  const reachable = candidates.find((dir) => {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir, '-a', '-w', dir], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  if (reachable === undefined)
    throw new Error(`PostgreSQL test cluster: the postgres user can enter none of ${candidates.join(', ')}`);
  return reachable;
}

function uidOf(user: string): { uid: number; gid: number } {
  try {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, user]).toString().trim()));
    return { uid: uid!, gid: gid! };
  } catch {
    throw new Error(`PostgreSQL test cluster: no "${user}" user (install postgresql: apt-get install postgresql)`);
  }
}

export interface ThrowawayCluster {
  /** postgres://postgres@127.0.0.1:PORT — the superuser, no password (trust); append /dbname. */
  url: string;
  stop(): void;
}

export async function startThrowawayCluster(settings: string[] = []): Promise<ThrowawayCluster> {
  if (!existsSync(join(BIN, 'initdb'))) {
    throw new Error(
      `PostgreSQL test cluster: ${BIN}/initdb is missing (apt-get install postgresql postgresql-contrib)`,
    );
  }
  const owner = uidOf('postgres');
  const home = mkdtempSync(join(parentForPostgres(), 'sitesync-pg-'));
  const data = join(home, 'data');
  const stop = () => {
    if (existsSync(join(data, 'postmaster.pid'))) {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Removing the directory below is what matters; a stray server dies with its files.
      }
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    chownSync(home, owner.uid, owner.gid);
    chmodSync(home, 0o700);
    asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
    const port = await freePort();
    writeFileSync(join(home, 'port'), String(port));
    asPostgres('pg_ctl', [
      '-D',
      data,
      '-l',
      join(home, 'log'),
      '-o',
      [`-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c max_connections=300`, ...settings].join(' '),
      '-w',
      'start',
    ]);
    return { url: `postgres://postgres@127.0.0.1:${port}`, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
