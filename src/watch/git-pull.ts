/**
 * `--git-pull`: before each reload, bring the configuration's checkout up to
 * date as the GitOps pull model does: fetch the branch and the applied tag
 * (the baseline) from the remote, then fast-forward. Asynchronous child
 * processes only, so /metrics keeps answering while git works; a failure
 * (network, a diverged checkout) is a reason to keep the last good configuration.
 */
import { git as runGit } from '../engine/git.js';

export interface GitPull {
  /** The configuration's directory (inside the checkout). */
  dir: string;
  remote: string;
  /** undefined: the branch checked out. */
  branch?: string | undefined;
  /** The tag `apply --mark-applied` moves. */
  tag: string;
}

/** The engine's git edge, with a deadline and the watch's signal; a failure is an error naming the command. */
async function git(dir: string, args: readonly string[], signal: AbortSignal): Promise<string> {
  const out = await runGit(dir, args, { signal, timeoutMs: 120_000 });
  if (!out.ok) throw new Error(`git ${args[0]}: ${out.stderr.trim().split('\n').pop()}`);
  return out.stdout.trim();
}

export function gitPuller(pull: GitPull): (signal: AbortSignal) => Promise<void> {
  return async (signal) => {
    const checkedOut = await git(pull.dir, ['symbolic-ref', '--short', 'HEAD'], signal);
    const branch = pull.branch ?? checkedOut;
    // The fast-forward moves the branch checked out: it must be the one pulled.
    if (branch !== checkedOut)
      throw new Error(`--git-branch ${branch}: the checkout is on ${checkedOut}; check out ${branch}`);
    const tracking = `refs/remotes/${pull.remote}/${branch}`;
    await git(pull.dir, ['fetch', '--quiet', '--no-tags', pull.remote, `+refs/heads/${branch}:${tracking}`], signal);
    // The tag may not exist yet (nothing applied): then there is no baseline, as in plan.
    await git(
      pull.dir,
      ['fetch', '--quiet', '--no-tags', pull.remote, `+refs/tags/${pull.tag}:refs/tags/${pull.tag}`],
      signal,
    ).catch((error: Error) => {
      if (!/couldn't find remote ref/i.test(error.message)) throw error;
    });
    await git(pull.dir, ['merge', '--ff-only', '--quiet', tracking], signal);
  };
}
