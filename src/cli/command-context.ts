/**
 * What each command's `register` function receives from main: the process's
 * Io and the runner that turns the body's errors into messages and exit codes.
 * Its own module so commands never import main (which imports them).
 */
import type { Io } from './io.js';

/** A command body: returns the exit code. */
export type CommandRunner = () => Promise<number>;

export interface CommandContext {
  io: Io;
  /** Commands call this with their body; main runs it and turns errors into messages. */
  run(body: CommandRunner): Promise<void>;
}
