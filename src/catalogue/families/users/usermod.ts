/** The usermod step the account actions share: options, then `--` and the user, with an optional undo. */
import { command, type CommandStep } from '../../mechanism.js';

export const usermod = (options: string[], user: string, undo?: CommandStep): CommandStep => command('usermod', [...options, '--', user], undo ? { undo } : {});
