/**
 * The command line as data, read from commander's own definitions (the ones --help prints),
 * so the shell completions (completion.ts) and the man page (man.ts) cannot drift from it.
 */
import type { Command, Option } from 'commander';

export interface OptionSpec {
  /** e.g. "-p, --param <k=v>" */
  flags: string;
  names: string[];
  description: string;
  /** It needs a value (`<v>`), so the next word is that value, not a command. */
  takesValue: boolean;
}

export interface CommandSpec {
  /** The words after `airlock`: [] for the program, ["audit", "verify"] for a subcommand. */
  path: string[];
  description: string;
  /** e.g. "<action>", "[file...]" */
  args: string[];
  /** Its first argument names a catalogue action (preview, describe, run). */
  takesAction: boolean;
  options: OptionSpec[];
  subcommands: CommandSpec[];
}

const optionSpec = (o: Option): OptionSpec => ({
  flags: o.flags,
  names: [o.short, o.long].filter((n): n is string => Boolean(n)),
  description: o.description,
  takesValue: o.required,
});

export function commandTree(cmd: Command, path: string[] = []): CommandSpec {
  const args = cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`));
  return {
    path,
    description: cmd.description(),
    args,
    takesAction: cmd.registeredArguments[0]?.name() === 'action',
    options: [...cmd.options.map(optionSpec), { flags: '-h, --help', names: ['-h', '--help'], description: 'display help for command', takesValue: false }],
    subcommands: cmd.commands.filter((s) => !(s as unknown as { _hidden?: boolean })._hidden).map((s) => commandTree(s, [...path, s.name()])),
  };
}

/** Every command of the tree, the program first, depth first. */
export const allCommands = (t: CommandSpec): CommandSpec[] => [t, ...t.subcommands.flatMap(allCommands)];
