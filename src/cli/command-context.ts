/**
 * What each command's `register` function receives from main: the process's
 * Io and the runner that turns the body's errors into messages and exit codes.
 * Its own module so commands never import main (which imports them).
 */
import type { Io } from './io.js';

/** A command body: returns the exit code. */
export type CommandRunner = () => Promise<number>;

export interface CommandContext {
  /**
   * For commands that end by themselves: its signal also aborts when the
   * reader of stdout or stderr has gone, so they stop as on Ctrl-C.
   */
  io: Io;
  /** Commands call this with their body; main runs it and turns errors into messages. */
  run(body: CommandRunner): Promise<void>;
  /**
   * `run` for commands that run until stopped (`serve`, `watch`): their Io is
   * aborted by SIGINT/SIGTERM only, a closed or failed stdout or stderr just
   * drops their lines, and their exit code stays their own.
   */
  runService(body: (io: Io) => Promise<number>): Promise<void>;
}
