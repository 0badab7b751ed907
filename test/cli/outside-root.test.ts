/**
 * Configuration files stay inside the repository (issue 33 item 2): a
 * websites.yaml that is a symlink to a file outside, a target's `files:` with
 * an absolute path or `../..`, and a `key_file` outside are refused, by every
 * command and format, without quoting a line of that file. The root is the
 * git top level (files elsewhere in the repository are fine), or the
 * directory of the first file outside git. An unknown key inside the
 * repository is quoted only as a short, escaped excerpt.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gitRepo } from '../helpers/git-repo.js';
import { tempDirWith } from '../helpers/temp.js';
import { useCliFixture, workspace } from './apply-support.js';

/** The /etc/shadow format: every line ends in `:`, so YAML reads each as a key. */
const HASH = '$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH';
const SHADOW = `root:${HASH}:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n`;
const fixture = useCliFixture();
let outside: string;
beforeEach(() => {
  outside = tempDirWith('outside-root', { shadow: SHADOW, 'extra.yaml': SHADOW, key: 'outside-key-0123456789\n' });
});
const COMMANDS = [
  ['validate'],
  ['validate', '--format', 'json'],
  ['plan'],
  ['plan', '--format', 'json'],
  ['plan', '--format', 'markdown'],
];

async function expectRefused(refusal: string) {
  for (const command of COMMANDS) {
    const run = await fixture.ws.run(command);
    expect(run.code, `${command.join(' ')}: ${run.out}${run.err}`).toBe(1);
    expect(`${run.out}${run.err}`, command.join(' ')).toContain(refusal);
  }
  const shown = fixture.ws.outputs.join('');
  for (const secret of ['saltsalt', '19000', 'daemon']) expect(shown).not.toContain(secret);
}

describe('a file outside the configuration root', () => {
  it('websites.yaml as a symlink to a file outside is refused, never read nor quoted', async () => {
    symlinkSync(join(outside, 'shadow'), join(fixture.ws.dir, 'websites.yaml'));
    await expectRefused(`websites.yaml: is outside the configuration's root`);
  });

  it("a target's files: with an absolute path or ../.. is refused, never read nor quoted", async () => {
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = fixture.server.url;
    const relativePath = relative(fixture.ws.dir, join(outside, 'extra.yaml')); // ../sitesync-outside-root-…/extra.yaml
    for (const file of [join(outside, 'extra.yaml'), relativePath, outside]) {
      fixture.ws.write(
        'websites.yaml',
        `version: 1\ntargets:\n  - name: production\n    url: ${fixture.server.url}\n    key_env: SITESYNC_API_KEY\n    files: [${file}]\nwebsites: []\n`,
      );
      await expectRefused("is outside the configuration's root");
    }
  });

  it('a key_file outside is refused before any request, and never sent', async () => {
    fixture.ws.env.SITESYNC_ALLOWED_ORIGINS = fixture.server.url;
    fixture.ws.write(
      'websites.yaml',
      `version: 1\ntargets:\n  - name: production\n    url: ${fixture.server.url}\n    key_file: ${join(outside, 'key')}\nwebsites: []\n`,
    );
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const run = await fixture.ws.run(command);
      expect(run.code).toBe(1);
      expect(run.err).toContain(
        `target production: key_file ${join(outside, 'key')} is outside the configuration's root`,
      );
    }
    expect(fixture.ws.outputs.join('')).not.toContain('outside-key-0123456789');
  });

  it('inside a git repository the root is its top level: a file beside the configuration directory is read', async () => {
    const repo = gitRepo();
    repo.commit('config', {
      'config/websites.yaml': 'version: 1\nwebsites:\n  - domain: a.example\n',
      'shared/more.yaml': 'version: 1\nwebsites:\n  - domain: b.example\n',
    });
    const ws = workspace(fixture.server);
    const validate = () =>
      ws.run(['validate', '-f', join(repo.dir, 'config/websites.yaml'), '-f', join(repo.dir, 'shared')]);
    const run = await validate();
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('valid (2 websites');
    symlinkSync(join(outside, 'shadow'), join(repo.dir, 'shared', 'link.yaml'));
    const linked = await validate();
    expect(linked.code).toBe(1);
    expect(linked.out).toContain(
      `shared/link.yaml: is outside the configuration's root ${repo.dir} (the git top level)`,
    );
    expect(linked.out).not.toContain('saltsalt');
  });
});

describe('an unknown key', () => {
  it('is quoted as a short excerpt with invisible characters escaped, in every format', async () => {
    const key = `\u202Eroot:${HASH}:19000:0:99999:7::`;
    fixture.ws.write('websites.yaml', `version: 1\n${key}:\nwebsites: []\n`);
    for (const command of COMMANDS) {
      const run = await fixture.ws.run(command);
      expect(run.code).toBe(1);
      // JSON documents escape the backslash and the quotes once more.
      const shown = `${run.out}${run.err}`.replaceAll('\\\\', '\\').replaceAll('\\"', '"');
      expect(shown, command.join(' ')).toContain('["\\u202eroot:$6$saltsalt$012345…"] is not a known field');
    }
    const shown = fixture.ws.outputs.join('');
    expect(shown).not.toContain('\u202E');
    expect(shown).not.toContain('abcdefgh');
  });
});

// A directory given by -f is refused as a whole when it resolves outside: its files are not even listed.
describe('a directory outside', () => {
  it('is one problem, its files unnamed', async () => {
    mkdirSync(join(fixture.ws.dir, 'conf'));
    writeFileSync(join(fixture.ws.dir, 'conf', 'websites.yaml'), 'version: 1\nwebsites: []\n');
    symlinkSync(outside, join(fixture.ws.dir, 'conf', 'linked'));
    const run = await fixture.ws.run(['validate', '-f', 'conf/websites.yaml', '-f', 'conf/linked']);
    expect(run.code).toBe(1);
    expect(run.out).toContain("conf/linked: is outside the configuration's root");
    expect(run.out).not.toContain('extra.yaml');
  });
});
