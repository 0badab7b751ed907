// Output files that cannot be written (`plan --out`, `export --out`): one clean
// error naming the path and the reason, exit 1, and no temporary file left behind.
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { writeAtomically } from '../../src/cli/io.js';
import { SitesyncError } from '../../src/model/errors.js';
import { useTempDir } from '../helpers/temp.js';
import { config, useCliFixture } from './apply-support.js';

describe('writeAtomically', () => {
  const dir = useTempDir('write');

  test('a missing directory or a directory in the way: a SitesyncError, no temporary file', () => {
    mkdirSync(join(dir(), 'taken'));
    expect(() => writeAtomically(join(dir(), 'taken'), 'x', 'taken')).toThrow(
      new SitesyncError('usage', 'cannot write taken: it is a directory'),
    );
    expect(() => writeAtomically(join(dir(), 'none', 'p.json'), 'x', 'none/p.json')).toThrow(
      new SitesyncError('usage', 'cannot write none/p.json: its directory does not exist'),
    );
    expect(readdirSync(dir())).toEqual(['taken']);
  });

  test('without replace, a file that appeared meanwhile is kept (export --out without --force)', () => {
    const path = join(dir(), 'websites.yaml');
    writeFileSync(path, 'hand-written\n');
    expect(() => writeAtomically(path, 'exported\n', 'websites.yaml', { replace: false })).toThrow(
      new SitesyncError('usage', 'cannot write websites.yaml: it already exists (created meanwhile; nothing replaced)'),
    );
    expect(readFileSync(path, 'utf8')).toBe('hand-written\n');
    expect(readdirSync(dir())).toEqual(['websites.yaml']);
    writeAtomically(join(dir(), 'new.yaml'), 'exported\n', 'new.yaml', { replace: false });
    expect(readFileSync(join(dir(), 'new.yaml'), 'utf8')).toBe('exported\n');
    expect(readdirSync(dir()).sort()).toEqual(['new.yaml', 'websites.yaml']);
  });
});

describe('plan --out and export --out to an unwritable path', () => {
  const cli = useCliFixture({
    config: config({ 'a.example': '' }),
    before: async ({ ws }) => mkdirSync(join(ws.dir, 'ro')),
  });

  test('plan --out', async () => {
    const missing = await cli.ws.run(['plan', '--out', 'nonexistent/dir/p.json']);
    expect(missing).toMatchObject({
      code: 1,
      err: 'error: cannot write nonexistent/dir/p.json: its directory does not exist\n',
    });
    const directory = await cli.ws.run(['plan', '--out', 'ro']);
    expect(directory).toMatchObject({ code: 1, err: 'error: cannot write ro: it is a directory\n' });
    expect(readdirSync(cli.ws.dir).sort()).toEqual(['ro', 'websites.yaml']);
  });

  test('export --out', async () => {
    const missing = await cli.ws.run(['export', '--out', 'nonexistent/dir/x.yaml']);
    expect(missing).toMatchObject({
      code: 1,
      err: 'error: cannot write nonexistent/dir/x.yaml: its directory does not exist\n',
    });
    const directory = await cli.ws.run(['export', '--out', 'ro']);
    expect(directory).toMatchObject({ code: 1, err: 'error: cannot write ro: it is a directory\n' });
    expect(readdirSync(cli.ws.dir).sort()).toEqual(['ro', 'websites.yaml']);
  });
});

describe('--out onto a device (/dev/full: every write fails with ENOSPC)', () => {
  const cli = useCliFixture({
    config: config({ 'a.example': '' }),
    // A link in the workspace stands for the device: were it replaced, the test's link goes, never /dev/full.
    before: async ({ ws }) => symlinkSync('/dev/full', join(ws.dir, 'full')),
  });

  test('plan --out: written into the device, not replaced by a file; its failure named, exit 1', async () => {
    const run = await cli.ws.run(['plan', '--out', 'full']);
    expect(run).toMatchObject({ code: 1, err: 'error: cannot write full: no space left on device (ENOSPC)\n' });
    expect(lstatSync(join(cli.ws.dir, 'full')).isSymbolicLink()).toBe(true);
    expect(readdirSync(cli.ws.dir).sort()).toEqual(['full', 'websites.yaml']);
  });

  test('plan --out /dev/full/x: a part of the path is not a directory', async () => {
    const run = await cli.ws.run(['plan', '--out', '/dev/full/x']);
    expect(run).toMatchObject({
      code: 1,
      err: 'error: cannot write /dev/full/x: a part of the path is not a directory\n',
    });
  });
});
