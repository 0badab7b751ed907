/**
 * sitesync as users install it: the tarball `npm pack` makes of the run's build
 * (built-cli.ts), unpacked into a project's node_modules/sitesync, with only
 * the dependencies an install with `--omit=optional` brings (linked from this
 * checkout's node_modules; their own dependencies resolve there too). The
 * server packages (optionalDependencies) are absent, as for a CLI-only user.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.js';
import type { BuiltCli } from './built-cli.js';

const ROOT = join(import.meta.dirname, '../..');

export interface PackedCli extends BuiltCli {
  /** The tarball npm pack made. */
  tarball: string;
  /** The project directory whose node_modules holds sitesync. */
  project: string;
}

interface PackageJson {
  files: string[];
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** Packs `built` and installs it (without optional dependencies) into a temporary project. */
export function packCli(built: BuiltCli, name: string): PackedCli {
  const stage = tempDir(`${name}-stage`);
  writeFileSync(join(stage, 'package.json'), readFileSync(join(ROOT, 'package.json')));
  // npm pack applies the negated entries (`!dist/cli`) itself.
  for (const entry of PACKAGE.files.filter((file) => !file.startsWith('!'))) {
    const from = entry === 'dist' ? join(built.bin, '../../dist') : join(ROOT, entry);
    cpSync(from, join(stage, entry), { recursive: true, dereference: true });
  }
  const out = tempDir(`${name}-tarball`);
  const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], {
    cwd: stage,
    encoding: 'utf8',
  }).trim();
  const project = tempDir(`${name}-project`);
  const installed = join(project, 'node_modules', 'sitesync');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(out, tarball), '-C', installed, '--strip-components=1']);
  for (const dependency of Object.keys(PACKAGE.dependencies)) {
    mkdirSync(join(project, 'node_modules', dependency, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency));
  }
  return {
    bin: join(installed, 'bin', 'sitesync.js'),
    tarball: join(out, tarball),
    project,
  };
}
