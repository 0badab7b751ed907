/**
 * Start-up stays small: only the command being run has its module loaded
 * (none for --version), while help and mistakes still see every command.
 */
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { commandsFor, main } from '../../src/cli/main.js';
import { VERSION } from '../../src/version.js';

const ALL = ['validate', 'schema', 'plan', 'apply', 'export', 'serve', 'watch', 'history'];

describe('commands loaded per invocation', () => {
  it('loads only the named command, none for --version, all for help and unknown commands', () => {
    expect(commandsFor(['validate', '-f', 'x.yaml'])).toEqual(['validate']);
    expect(commandsFor(['plan', '--help'])).toEqual(['plan']);
    expect(commandsFor(['--version'])).toEqual([]);
    expect(commandsFor(['-V'])).toEqual([]);
    expect(commandsFor([])).toEqual(ALL);
    expect(commandsFor(['--help'])).toEqual(ALL);
    expect(commandsFor(['help', 'plan'])).toEqual(ALL);
    expect(commandsFor(['valdate'])).toEqual(ALL);
  });

  it('prints the version, and lists every command in help, as before', async () => {
    const version = captureIo();
    expect(await main(['--version'], version)).toBe(0);
    expect(version.out()).toBe(`${VERSION}\n`);

    const help = captureIo();
    expect(await main(['--help'], help)).toBe(0);
    const listed = [...help.out().matchAll(/^ {2}(\w+)/gm)].map((match) => match[1]);
    expect(listed).toEqual([...ALL, 'help']);
  });

  it('still suggests the right command for a typo', async () => {
    const io = captureIo();
    expect(await main(['valdate'], io)).toBe(1);
    expect(io.err()).toContain('Did you mean validate?');
  });
});
