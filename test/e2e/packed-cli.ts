/**
 * sitesync as users install it: the tarball `npm pack` makes of the run's
 * build (built-cli.ts), packed once per run, unpacked into a project's
 * node_modules/sitesync, with only the dependencies an install with
 * `--omit=optional` brings (linked from this checkout's node_modules; their own
 * dependencies resolve there too). The server packages (optionalDependencies)
 * are absent, as for a CLI-only user.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.js';
import { type BuiltCli, builtCli, oncePerRun } from './built-cli.js';

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

/** The run's tarball of its build (packed once), installed (without optional dependencies) into a temporary project. */
export async function packedCli(name: string): Promise<PackedCli> {
  const tarball = await packedTarball();
  // Outside this checkout's node_modules, so the server packages cannot be found by walking up.
  const project = tempDir(`${name}-project`);
  const installed = join(project, 'node_modules', 'sitesync');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const dependency of Object.keys(PACKAGE.dependencies)) {
    mkdirSync(join(project, 'node_modules', dependency, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency));
  }
  return { bin: join(installed, 'bin', 'sitesync.js'), tarball, project };
}

/** `npm pack` of the run's build with this checkout's package.json, `files` and README (packed once per run). */
export async function packedTarball(): Promise<string> {
  const built = await builtCli();
  const out = join(built.bin, '../../packed');
  await oncePerRun(out, 'npm pack of the build', () => pack(built, out));
  const [tarball] = readdirSync(out).filter((file) => file.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  return join(out, tarball);
}

function pack(built: BuiltCli, out: string): void {
  const stage = tempDir('pack-stage');
  for (const file of ['package.json', 'README.md']) writeFileSync(join(stage, file), readFileSync(join(ROOT, file)));
  // npm pack applies the negated entries (`!dist/cli`) itself.
  for (const entry of PACKAGE.files.filter((file) => !file.startsWith('!'))) {
    const from = entry === 'dist' ? join(built.bin, '../../dist') : join(ROOT, entry);
    cpSync(from, join(stage, entry), { recursive: true, dereference: true });
  }
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], { cwd: stage });
}
