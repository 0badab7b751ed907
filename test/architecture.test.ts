/**
 * The layout as a test: reads every import under src/ and checks the import
 * direction (model ← plan, render, config, api, apply, server ← cli; server
 * and api never meet), that the pure folders use no I/O built-ins, and that
 * each third-party package is used from one folder. A failure names the file
 * and the import, so a shortcut cannot slip in unnoticed; change the tables
 * below only together with the architecture they describe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

/** Each third-party package and the folder of src/ allowed to use it (two for prom-client: two programs, two registries). */
const PACKAGE_HOME: Readonly<Record<string, string | readonly string[]>> = {
  yaml: 'config',
  'js-yaml': 'config', // the fast reading of plain files (quick-parse.ts)
  ajv: 'config',
  undici: 'api',
  diff: 'render',
  picocolors: 'render',
  fastify: 'server',
  'better-sqlite3': 'server',
  pg: ['server', 'watch'], // the server's PostgreSQL store; watch's replicas coordinate there (watch/coordination/)
  'sonic-boom': 'server',
  'prom-client': ['server', 'watch'], // serve's metrics (server/metrics/), sitesync watch's (watch/metrics.ts)
  '@marcbachmann/cel-js': 'plan', // the policies' CEL rules (plan/policies/environment.ts)
  commander: 'cli',
  '@commander-js/extra-typings': 'cli',
};

/** Folders without file, network or process built-ins (pure ones, and apply/), and the only built-ins they may use. */
const PURE_BUILTINS: Readonly<Record<string, readonly string[]>> = {
  model: ['node:url'], // domainToASCII
  plan: ['node:crypto'], // digests
  render: [],
  apply: [], // orchestration over the WebsitesApi port: journal file, plan lock and terminal are the CLI's
};

/**
 * The folders each folder may import from. `version.js` (a constant at the
 * root of src/) may be imported from anywhere; cli and the root index.ts,
 * which wire everything together, are not restricted.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  model: [],
  plan: ['model'],
  render: ['model', 'plan'],
  config: ['model'],
  api: ['model'],
  server: ['model'],
  apply: ['model', 'plan', 'api', 'render'],
  // The pipeline: everything below it, never a front end (cli/, the library entry, server/).
  engine: ['model', 'plan', 'config', 'api', 'apply', 'render'],
  // The watch loop, its ports and the adapter over the engine (engine-port.ts, load-targets.ts);
  // render for the status page (page/), which shows a difference in the words of `plan`.
  watch: ['model', 'plan', 'api', 'apply', 'config', 'engine', 'render'],
};

/**
 * The rooms of server/ and the rooms each may import (its own always; the
 * root, index.ts and setup-error.ts, wires them and is not restricted):
 * http/ reaches storage through the contract in store/, never a backend;
 * metrics/ keeps the Prometheus series, told about answers by http/.
 */
const SERVER_ROOMS: Readonly<Record<string, readonly string[]>> = {
  http: ['store', 'metrics', ''],
  store: [''],
  metrics: ['store', ''],
  'store/sqlite': ['store', ''],
  'store/postgres': ['store', ''],
  admin: ['store', 'store/sqlite', 'store/postgres', ''],
};

/** The server's packages and the rooms allowed to use them; admin/ copies SQLite into PostgreSQL (admin/migrate-data.ts). */
const SERVER_PACKAGE_ROOMS: Readonly<Record<string, readonly string[]>> = {
  fastify: ['http'],
  'sonic-boom': ['http'],
  'prom-client': ['metrics'],
  'better-sqlite3': ['store/sqlite', 'admin'],
  pg: ['store/postgres', 'admin'],
};

/** `server/store/sqlite/store.ts` → `store/sqlite`; a file at server/'s root → ''. */
const serverRoom = (file: string): string => file.split('/').slice(1, -1).join('/');

interface Import {
  file: string;
  folder: string;
  /** The folder of src/ imported, or undefined for a package. */
  target?: string;
  /** Inside server/: the room of server/ imported (see SERVER_ROOMS). */
  targetRoom?: string;
  /** The package name, for bare specifiers. */
  pkg?: string;
  /** A Node.js built-in (`node:fs`). */
  builtin?: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const folderOf = (path: string): string => relative(SRC, path).split('/')[0] ?? '';

function importsOf(path: string): Import[] {
  const text = readFileSync(path, 'utf8');
  const file = relative(SRC, path);
  const folder = folderOf(path);
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'([^']+)'/gm)].map(
    (match) => match[1]!,
  );
  return specifiers.flatMap((specifier): Import[] => {
    if (specifier.startsWith('node:')) return [{ file, folder, builtin: specifier }];
    if (specifier.startsWith('.')) {
      const target = relative(SRC, resolve(dirname(path), specifier));
      const room = target.startsWith('server/') ? { targetRoom: serverRoom(target) } : {};
      return [{ file, folder, target: folderOf(resolve(dirname(path), specifier)), ...room }];
    }
    const parts = specifier.split('/');
    const pkg = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    return [{ file, folder, pkg }];
  });
}

const imports = sourceFiles(SRC).flatMap(importsOf);

/**
 * The source files a module loads when it is loaded: its static imports and
 * re-exports, transitively; `import type` (erased) and `import()` (loaded when
 * run) do not count. The bundle (scripts/bundle.mjs) keeps the same split.
 */
function staticClosure(entry: string): string[] {
  const seen = new Set<string>([entry]);
  for (const path of seen) {
    const text = readFileSync(path, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;']*?\sfrom\s+)?'(\.[^']+)'/gm)) {
      if (match[1] === undefined) seen.add(resolve(dirname(path), match[2]!.replace(/\.js$/, '.ts')));
    }
  }
  return [...seen];
}

/**
 * The imports of `path` that load another file when it runs: static imports
 * and re-exports (not `import type`) and dynamic `import()`, as absolute paths.
 */
function loadedImports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const statics = [...text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;']*?\sfrom\s+)?'(\.[^']+)'/gm)]
    .filter((match) => match[1] === undefined)
    .map((match) => match[2]!);
  const dynamics = [...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((match) => match[1]!);
  return [...statics, ...dynamics].map((specifier) => resolve(dirname(path), specifier.replace(/\.js$/, '.ts')));
}

/** The static imports of `path` that load code (not `import type`), as absolute paths. */
function staticImports(path: string): string[] {
  return [...readFileSync(path, 'utf8').matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;']*?\sfrom\s+)?'(\.[^']+)'/gm)]
    .filter((match) => match[1] === undefined)
    .map((match) => resolve(dirname(path), match[2]!.replace(/\.js$/, '.ts')));
}

/** The longest chain of imports among the files of `dir` (a chain of one file has length 1), and the chain. */
function longestChain(dir: string): string[] {
  const files = new Set(sourceFiles(dir));
  const memo = new Map<string, string[]>();
  const chainFrom = (file: string): string[] => {
    const known = memo.get(file);
    if (known !== undefined) return known;
    memo.set(file, [file]); // a cycle ends the chain here (the cycle test reports it)
    let longest: string[] = [];
    for (const next of loadedImports(file).filter((target) => files.has(target))) {
      const chain = chainFrom(next);
      if (chain.length > longest.length) longest = chain;
    }
    const chain = [file, ...longest];
    memo.set(file, chain);
    return chain;
  };
  return [...files].map(chainFrom).reduce((a, b) => (b.length > a.length ? b : a), []);
}

describe('architecture', () => {
  it('finds the imports it checks', () => {
    expect(imports.filter((entry) => entry.pkg === 'yaml').length).toBeGreaterThan(0);
    expect(imports.filter((entry) => entry.folder === 'plan' && entry.target === 'model').length).toBeGreaterThan(0);
  });

  it('uses each third-party package from one folder only', () => {
    const strays = imports
      .filter((entry) => entry.pkg !== undefined)
      .filter((entry) => ![PACKAGE_HOME[entry.pkg!] ?? []].flat().includes(entry.folder))
      .map((entry) => `${entry.file} imports ${entry.pkg} (${PACKAGE_HOME[entry.pkg!] ?? 'not a known dependency'})`);
    expect(strays).toEqual([]);
  });

  it('keeps model, plan and render free of I/O built-ins', () => {
    const impure = imports
      .filter((entry) => entry.builtin !== undefined && PURE_BUILTINS[entry.folder] !== undefined)
      .filter((entry) => !PURE_BUILTINS[entry.folder]!.includes(entry.builtin!))
      .map((entry) => `${entry.file} imports ${entry.builtin}`);
    expect(impure).toEqual([]);
  });

  it('keeps the import direction: model ← plan, render, config, api, apply, server ← cli', () => {
    const wrong = imports
      .filter((entry) => entry.target !== undefined && entry.target !== entry.folder && entry.target !== 'version.js')
      .filter((entry) => {
        const allowed = MAY_IMPORT[entry.folder];
        return allowed !== undefined && !allowed.includes(entry.target!);
      })
      .map((entry) => `${entry.file} imports from ${entry.target}/`);
    expect(wrong).toEqual([]);
  });

  it('keeps the CLI shallow: no chain of imports among src/cli files longer than 5 (bin → main → command → helper → leaf)', () => {
    const chain = longestChain(join(SRC, 'cli')).map((path) => relative(SRC, path));
    expect(chain.length).toBeGreaterThan(2);
    expect(chain.length, chain.join(' → ')).toBeLessThanOrEqual(5);
  });

  it('keeps each command thin: every src/cli/commands/*.ts at most 150 lines (flags → engine → view → exit code)', () => {
    const long = sourceFiles(join(SRC, 'cli', 'commands'))
      .map((path) => ({ file: relative(SRC, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter((entry) => entry.lines > 150);
    expect(long).toEqual([]);
  });

  it('has no import cycle among the modules of src/ (static imports that load code)', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((one) => relative(SRC, one)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of staticImports(file)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of sourceFiles(SRC)) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps the server in its rooms: http/ sees the store contract only, the backends never meet', () => {
    const wrong = imports
      .filter((entry) => entry.folder === 'server' && entry.target === 'server' && entry.targetRoom !== undefined)
      .filter((entry) => {
        const allowed = SERVER_ROOMS[serverRoom(entry.file)];
        return (
          allowed !== undefined && entry.targetRoom !== serverRoom(entry.file) && !allowed.includes(entry.targetRoom!)
        );
      })
      .map((entry) => `${entry.file} imports from server/${entry.targetRoom || '(root)'}`);
    expect(wrong).toEqual([]);
    expect(
      imports.filter((entry) => entry.file.startsWith('server/http/') && entry.targetRoom === 'store').length,
    ).toBeGreaterThan(0);
  });

  it("uses each of the server's packages from its room only (everything PostgreSQL in store/postgres/)", () => {
    const strays = imports
      .filter((entry) => entry.folder === 'server' && entry.pkg !== undefined)
      .filter((entry) => !(SERVER_PACKAGE_ROOMS[entry.pkg!] ?? []).includes(serverRoom(entry.file)))
      .map((entry) => `${entry.file} imports ${entry.pkg}`);
    expect(strays).toEqual([]);
  });

  it('keeps commands apart: a command imports shared steps (cli/prepare.ts and the like), never another command', () => {
    const commands = join(SRC, 'cli', 'commands');
    const crossing = sourceFiles(commands).flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(/from '\.\/([^']+)'/g)]
        .map((match) => match[1]!)
        .map((target) => `${relative(SRC, path)} imports ./${target}`),
    );
    expect(crossing).toEqual([]);
  });

  it('keeps the HTTP client out of what `validate` loads at start (its later imports are dynamic)', () => {
    const reached = staticClosure(join(SRC, 'cli', 'commands', 'validate.ts')).map((path) => relative(SRC, path));
    expect(reached).toContain('config/index.ts');
    expect(reached.filter((file) => folderOf(join(SRC, file)) === 'api')).toEqual([]);
  });

  it('reveals secrets only at the HTTP edge (api/), as model/secret.ts says', () => {
    const revealing = sourceFiles(SRC)
      .filter((path) => /\.reveal\(\)/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(SRC, path));
    expect(revealing.length).toBeGreaterThan(0);
    expect(revealing.filter((file) => folderOf(join(SRC, file)) !== 'api')).toEqual([]);
  });
});
