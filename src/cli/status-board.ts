/**
 * Progress of several targets on a terminal: one line per target (its latest
 * status), redrawn in place; lines printed meanwhile go above it. Off a
 * terminal it draws nothing (each target's lines are written as they come,
 * named after the target, by engine/targets.ts).
 */
import type { OutputStream } from './io.js';

export interface StatusBoard {
  update(name: string, status: string): void;
  /** Lines that stay: written above the board. */
  print(lines: readonly string[]): void;
  /** Leaves the last statuses on the screen. */
  end(): void;
}

const WIDTH = 100;

export function statusBoard(stream: OutputStream, names: readonly string[]): StatusBoard {
  if (!stream.isTTY) {
    return {
      update: () => {},
      print: (lines) => stream.write(lines.map((line) => `${line}\n`).join('')),
      end: () => {},
    };
  }
  const statuses = new Map(names.map((name) => [name, 'waiting']));
  const width = Math.max(...names.map((name) => name.length));
  let drawn = 0;
  const erase = () => {
    if (drawn > 0) stream.write(`\x1b[${drawn}A\r\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    let text = '';
    for (const [name, status] of statuses) {
      text += `${`${name.padEnd(width)}  ${status}`.slice(0, WIDTH)}\n`;
    }
    stream.write(text);
    drawn = statuses.size;
  };
  return {
    update(name, status) {
      statuses.set(name, status);
      erase();
      draw();
    },
    print(lines) {
      erase();
      stream.write(lines.map((line) => `${line}\n`).join(''));
      draw();
    },
    end() {},
  };
}
