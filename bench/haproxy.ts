/**
 * HAProxy for the benchmark's replica rows, with the deployment's own
 * configuration (scripts/haproxy.cfg) in front of the given replicas (one
 * replica is given as both servers). Resolves once `/ready` answers through it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/postgres-cluster.js';

const SCRIPTS = join(fileURLToPath(new URL('..', import.meta.url)), 'scripts');
const CONFIG = join(SCRIPTS, 'haproxy.cfg');

/** The haproxy binary (scripts/haproxy-path.sh, the project's one lookup), or undefined when it is not installed. */
export function haproxyPath(): string | undefined {
  try {
    return execFileSync(join(SCRIPTS, 'haproxy-path.sh'), {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

export interface Balancer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startHaproxy(replicaUrls: string[]): Promise<Balancer> {
  const haproxy = haproxyPath();
  if (!haproxy) throw new Error('haproxy is not installed: apt-get install haproxy');
  const [first, second = first] = replicaUrls.map((url) => new URL(url).host);
  const port = await freePort();
  const child = spawn(haproxy, ['-db', '-f', CONFIG], {
    env: { SITESYNC_LB_BIND: `127.0.0.1:${port}`, SITESYNC_REPLICA1: first!, SITESYNC_REPLICA2: second! },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { url, child, stop };
    await new Promise((done) => setTimeout(done, 50));
  }
  await stop();
  throw new Error('haproxy did not answer /ready within 10 s');
}
