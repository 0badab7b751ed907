/**
 * The resolved configuration: what `config/` produces from websites.yaml files
 * and what `plan/` consumes. Plain data (secrets are Secret objects).
 */
import type { DesiredWebsite, SourceLocation } from './website.js';

export interface ConfigPolicy {
  prune: boolean;
  manage: { include: string[]; exclude: string[] };
  protect: string[];
  limits: { maxDeletes: number; maxChangePercent: number };
}

export const DEFAULT_POLICY: ConfigPolicy = {
  prune: false,
  manage: { include: ['*'], exclude: [] },
  protect: [],
  limits: { maxDeletes: 3, maxChangePercent: 30 },
};

export interface ConfigProblem {
  severity: 'error' | 'warning';
  message: string;
  /** Path in the document, in the user's terms: `websites[3].privacy`. */
  path: string;
  source?: SourceLocation;
}

export interface DesiredState {
  websites: DesiredWebsite[];
  policy: ConfigPolicy;
  /** `api.url` from the file, if given. */
  apiUrl?: string;
  files: string[];
  /** sha256 of the resolved configuration without secret values: a saved plan's staleness check. */
  digest: string;
  warnings: ConfigProblem[];
}
