/**
 * Export: the live websites of one installation (the request's connection,
 * or one target of websites.yaml's `targets:`) as a canonical websites.yaml
 * text, with what the text cannot hold faithfully as warnings. Reads only.
 */
import { exportConfigWithWarnings } from '../config/export.js';
import type { DesiredState, TargetDeclaration } from '../model/desired-state.js';
import { canonicalDomain } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import { matchesAny } from '../model/glob.js';
import type { DesiredWebsite } from '../model/website.js';
import { connectionOf, openClient } from './connect.js';
import type { EngineContext } from './context.js';
import { listLive, loadDesiredState } from './prepare.js';
import { type ConnectionRequest, namesOf } from './request.js';
import { refuseConnectionFlags, refuseTargetsWithout, selectTargets, targetConnection } from './targets.js';

export interface ExportRequest extends ConnectionRequest {
  only: string[];
  /** The one target of websites.yaml's `targets:` to export (names or globs matching exactly one). */
  targets?: string[] | undefined;
  /** The `$schema` modeline's path, as seen from where the text is written. */
  schema?: string | undefined;
}

export interface Exported {
  /** The websites.yaml text. */
  text: string;
  warnings: string[];
  /** The websites the text cannot hold as they are live (each has a warning). */
  incomplete: ReturnType<typeof exportConfigWithWarnings>['incomplete'];
  /** Websites written. */
  count: number;
  /** The service's URL. */
  target: string;
}

export async function exportSites(request: ExportRequest, context: EngineContext): Promise<Exported> {
  const { options, inherited, shared } = await exportConnection(request, context);
  const api = openClient(options, context, connectionOf(options, context));
  try {
    const live = await listLive(api, context);
    // Globs are on canonical domains (a site the service holds in Unicode is matched by its punycode form).
    const selected =
      request.only.length === 0 ? live : live.filter((site) => matchesAny(canonicalDomain(site.domain), request.only));
    const { text, warnings, incomplete } = exportConfigWithWarnings(selected, {
      header: `Exported from ${api.url} by sitesync export.`,
      ...(inherited !== undefined && { inherited }),
      ...(request.schema !== undefined && { schema: request.schema }),
    });
    return {
      text,
      warnings: shared === undefined ? warnings : [...warnings, shared],
      incomplete,
      count: selected.length,
      target: api.url,
    };
  } finally {
    await api.close();
  }
}

/**
 * The request's connection, or with a target that target's URL, key and rate
 * limit, and the defaults its files inherit from websites.yaml: the export is
 * written relative to them, so adopting the account plans to zero.
 */
async function exportConnection(
  request: ExportRequest,
  context: EngineContext,
): Promise<{ options: ExportRequest; inherited: DesiredState['defaults']; shared?: string | undefined }> {
  if (request.targets === undefined || request.targets.length === 0) return { options: request, inherited: undefined };
  refuseConnectionFlags(request);
  const root = await loadDesiredState({ files: [] }, context, 'check');
  if (root.targets === undefined) refuseTargetsWithout({ targets: request.targets, names: request.names });
  const chosen = selectTargets(root.targets ?? [], request.targets, namesOf(request).target);
  const [target] = chosen;
  if (target === undefined || chosen.length > 1) {
    const names = chosen.map((one) => one.name).join(', ');
    const flag = namesOf(request).target;
    throw new SitesyncError('usage', `export writes one target's websites: ${flag} matches ${names}; name one`);
  }
  const options = targetConnection(request, target, context.cwd);
  return { options, inherited: root.defaults ?? {}, shared: sharedWarning(target, root.websites) };
}

/** What the target gets beside its own files unless it opts out (issue 38): said before the plan creates them. */
function sharedWarning(target: TargetDeclaration, websites: readonly DesiredWebsite[]): string | undefined {
  const count = websites.filter((site) => site.source?.file === target.declaredIn).length;
  if (target.sharedWebsites === false || count === 0) return undefined;
  return `target ${target.name} also gets the ${count} website${count === 1 ? '' : 's'} ${target.declaredIn} lists for every target: plan --target ${target.name} creates those its account lacks; set shared_websites: false in its targets: entry to keep them out`;
}
