/**
 * A command's code, loaded only when that command runs. main.ts declares every command
 * (name, arguments, options, help) with commander alone, so `airlock --help` and a
 * usage error start without the client, the renderers, zod or the catalogue: those cost
 * several times node's own start-up (`npm run bench` measures it; the budget is 3x a
 * bare `node -e 0`, and test/unit/cli-startup.test.ts holds the static imports to a list).
 *
 *   program.command('cancel').argument('<transaction>').addOption(jsonOpt())
 *     .action(lazy(() => import('./cancel.js'), 'cancel'));
 *
 * The named function gets commander's arguments (positional arguments, the options, the
 * Command) and returns the exit code (or nothing: 0, or what it set itself). A throw is
 * printed as a typed error (as JSON with --json) and exits with the code of its category.
 */
import type { Command } from 'commander';

type Body = (...args: any[]) => Promise<number | void> | number | void;
/** The exports of a module that can be a command's body. */
type BodyName<M> = { [K in keyof M]: M[K] extends Body ? K : never }[keyof M];

export function lazy<M, K extends BodyName<M>>(load: () => Promise<M>, name: K): (...args: any[]) => Promise<void> {
  return command(async (...args: any[]) => ((await load())[name] as Body)(...args));
}

/**
 * Every command's action, lazy or declared in place: the body's exit code (or nothing: 0, or
 * what it set itself), and a throw printed as a typed error (as JSON with --json) with the
 * exit code of its category. The one place a command's error is reported.
 */
export function command(body: Body): (...args: any[]) => Promise<void> {
  return async (...args: any[]) => {
    const cmd = args[args.length - 1] as Command;
    try {
      const code = await body(...args);
      if (typeof code === 'number') process.exitCode = code;
    } catch (e) {
      const { reportError } = await import('./ui.js');
      process.exitCode = reportError(e, Boolean(cmd.optsWithGlobals().json));
    }
  };
}
