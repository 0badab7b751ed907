/**
 * The engine port holds each target's key and passwords while the target is
 * loaded, so they are redacted from every line; a target that leaves the
 * configuration gives them back (a key held for ever would redact a value the
 * process no longer uses, and the registry would grow with every removed target).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { redact } from '../../src/model/secret.js';
import { tempDir } from '../helpers/temp.js';
import { enginePortOver, useCleanups } from './support.js';

const cleanups = useCleanups();
const KEY_A = 'engine-port-key-a-5b1e07c93f';
const KEY_B = 'engine-port-key-b-8d24a6f01c';
const target = (name: string, variable: string) =>
  `  - name: ${name}\n    url: http://127.0.0.1:9/\n    key_env: ${variable}\n`;

/** The engine port over `dir`, with `env` and the address the targets name pinned. */
const portOver = (dir: string, env: Record<string, string>, heals = false) =>
  enginePortOver(cleanups, dir, { ...env, SITESYNC_ALLOWED_ORIGINS: 'http://127.0.0.1:9' }, { heals });

it('releases a removed target key: no longer redacted, while the kept one still is', async () => {
  const dir = tempDir('engine-port-secrets');
  const file = join(dir, 'websites.yaml');
  const write = (targets: string) => writeFileSync(file, `version: 1\ntargets:\n${targets}websites: []\n`);
  write(target('a', 'SITESYNC_KEY_A') + target('b', 'SITESYNC_KEY_B'));
  const port = portOver(dir, { SITESYNC_KEY_A: KEY_A, SITESYNC_KEY_B: KEY_B });
  const signal = new AbortController().signal;
  expect(await port.reload(signal)).toMatchObject({ ok: true });
  expect(redact(`${KEY_A} ${KEY_B}`)).not.toContain('engine-port-key');
  write(target('a', 'SITESYNC_KEY_A'));
  expect(await port.reload(signal)).toMatchObject({ ok: true, targets: [{ name: 'a' }] });
  expect(redact(KEY_A)).not.toContain(KEY_A);
  expect(redact(KEY_B)).toBe(KEY_B);
});

/**
 * Target a, whose key is in the file `key` and whose own file a.yaml has a password-protected site
 * (so only the target's load holds the password); its port, with the password set.
 */
function passwordTarget(dir: string, key: string, password: string) {
  writeFileSync(join(dir, 'key'), key);
  writeFileSync(
    join(dir, 'websites.yaml'),
    'version: 1\ntargets:\n  - name: a\n    url: http://127.0.0.1:9/\n    key_file: key\n    files: [a.yaml]\n',
  );
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
  const site = '  - domain: a.example\n    privacy: password\n    password: ${SITESYNC_PASSWORD}\n';
  writeFileSync(join(dir, 'a.yaml'), `version: 1\nwebsites:\n${site}`);
  return portOver(dir, { SITESYNC_PASSWORD: password }, true);
}

it('releases the old key when a key file is rotated, and keeps the target passwords, still in use, redacted', async () => {
  const dir = tempDir('engine-port-rotation');
  const PASSWORD = 'engine-port-site-password-3c9e';
  const [OLD, NEW] = ['engine-port-key-old-61d0a2e9', 'engine-port-key-new-f47b35c8'];
  const port = passwordTarget(dir, OLD, PASSWORD);
  const signal = new AbortController().signal;
  expect(await port.reload(signal)).toMatchObject({ ok: true, targets: [{ name: 'a', checkable: true }] });
  expect(redact(`${OLD} ${PASSWORD}`)).not.toMatch(/engine-port-(key|site)/);
  writeFileSync(join(dir, 'key'), NEW); // the configuration's files are the same: only the key moved
  expect(await port.reload(signal)).toMatchObject({ ok: true, reloaded: [] });
  expect(redact(OLD)).toBe(OLD);
  expect(redact(`${NEW} ${PASSWORD}`)).not.toMatch(/engine-port-(key|site)/);
});

it('releases the passwords of a target whose files no longer use them', async () => {
  const dir = tempDir('engine-port-edit');
  const PASSWORD = 'engine-port-site-password-8a41';
  const port = passwordTarget(dir, 'engine-port-key-edit-0b7d63f2', PASSWORD);
  const signal = new AbortController().signal;
  await port.reload(signal);
  expect(redact(PASSWORD)).not.toContain(PASSWORD);
  writeFileSync(join(dir, 'a.yaml'), 'version: 1\nwebsites:\n  - domain: a.example\n    privacy: private\n');
  expect(await port.reload(signal)).toMatchObject({ ok: true, reloaded: ['a'] });
  expect(redact(PASSWORD)).toBe(PASSWORD);
});
