/**
 * A commit's web page from the remote's URL, for the links of a Markdown plan:
 * GitHub (`/commit/SHA`) and GitLab (`/-/commit/SHA`, any host whose name says
 * gitlab), over https or ssh. Credentials in the remote URL (a CI token) are
 * never carried into the link; any other remote gives no link. Pure.
 */

export function commitUrl(remote: string, commit: string): string | undefined {
  const web = webBase(remote);
  if (web === undefined || !/^[0-9a-f]{40}$/.test(commit)) return undefined;
  if (web.host === 'github.com') return `https://github.com/${web.path}/commit/${commit}`;
  if (web.host.split('.').includes('gitlab') || web.host.startsWith('gitlab'))
    return `https://${web.host}/${web.path}/-/commit/${commit}`;
  return undefined;
}

/** Host and project path of an https, ssh or scp-like remote, without credentials or `.git`. */
function webBase(remote: string): { host: string; path: string } | undefined {
  const scp = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+):(?!\/\/)([^\s]+)$/.exec(remote);
  let host: string;
  let path: string;
  if (scp !== null) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    let url: URL;
    try {
      url = new URL(remote);
    } catch {
      return undefined;
    }
    if (!['https:', 'http:', 'ssh:', 'git+ssh:'].includes(url.protocol)) return undefined;
    host = url.hostname;
    path = url.pathname;
  }
  const clean = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  const segments = clean.split('/');
  if (segments.length < 2 || !segments.every((part) => /^[\w.-]+$/.test(part) && !/^\.+$/.test(part))) return undefined;
  return { host: host.toLowerCase(), path: clean };
}
