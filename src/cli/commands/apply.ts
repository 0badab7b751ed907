import type { Command } from '@commander-js/extra-typings';
import type { CommandContext } from '../main.js';

export function registerApply(_program: Command, _context: CommandContext): void {}
