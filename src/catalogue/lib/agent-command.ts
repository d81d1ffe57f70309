/**
 * The one check for every command line the host will run on the agent's behalf later,
 * outside Airlock's executor: a sudo grant, a cron job, the commands of the service a
 * timer starts. Root runs them (or a user through sudo) long after the approval, with
 * whatever stdin, terminal and working directory that caller has, so the program and
 * every argument are fixed now and must hold no way out:
 *
 * - the program is one of the allowlist (./agent-programs.ts), by its real path, and the
 *   file there is what the table means: every component real (no symbolic link),
 *   root-owned and writable by root alone, an ordinary ELF executable with one name (a
 *   script runs its interpreter; a hard link is a second name for possibly another program);
 * - its arguments use a small alphabet that neither sudoers nor cron's /bin/sh reads
 *   anything into (commandArgument) and fit one of the program's usage lines
 *   (./command-grammar.ts); every file they name passes the trusted-path rule
 *   (./trusted-path.ts) and what its type asks (a directory, root's own configuration).
 *
 * The same check serves the unit a timer starts: root wrote its command lines, but the
 * agent chooses which unit runs on a schedule, so each of them must be allowed too.
 */
import { z } from 'zod';
import { boundedString } from '../params.js';
import { AirlockError, type ErrorCategory } from '../../protocol/errors.js';
import type { Host } from '../action.js';
import { AGENT_GRAMMARS, allowedText, typesText } from './agent-programs.js';
import { matchGrammar, type TypedPath } from './command-grammar.js';

export const MAX_COMMAND_ARGS = 32;

const ARG_CHARS = /^[A-Za-z0-9._/@+=:,-]+$/;
const normalisedAbsolute = (p: string) => p === '/' || (p.startsWith('/') && !p.slice(1).split('/').some((s) => s === '' || s === '.' || s === '..'));

/** The file an argument names, or null when it names none: `/path`, or the value of `--opt=/path` / `-o=/path`. */
export function argumentPath(arg: string): string | null {
  if (arg.startsWith('/')) return arg;
  const eq = arg.indexOf('=');
  if (arg.startsWith('-') && eq > 0 && arg[eq + 1] === '/') return arg.slice(eq + 1);
  return null;
}

/**
 * One fixed argument. Letters, digits and . _ / @ + = : , - only: no white space (sudo
 * matches the arguments as one string joined by spaces, so "a b" and "a", "b" would be
 * the same rule), no wildcard or backslash (sudoers would match a pattern: free
 * arguments), no quote ("" means "no arguments" to sudo), no %, #, $ or other character
 * cron's /bin/sh acts on. A '/' only in an absolute path, alone or after `--option=`:
 * a relative path would be resolved against a working directory the caller chooses.
 */
export const commandArgument = boundedString(255, 'an argument must be at most 255 characters')
  .min(1, 'an argument must not be empty')
  .regex(ARG_CHARS, 'an argument may hold only letters, digits and . _ / @ + = : , - (no spaces, wildcards, quotes or shell characters)')
  .refine((a) => !a.includes('/') || argumentPath(a) !== null, "a '/' may appear only in an absolute path, as the argument itself or after --option= (a relative path depends on the caller's working directory)")
  .refine((a) => {
    const p = argumentPath(a);
    return p === null || normalisedAbsolute(p);
  }, "a path argument must be normalised: no '..', '.', '//' or trailing '/'");

export const commandArguments = z.array(commandArgument).max(MAX_COMMAND_ARGS, `at most ${MAX_COMMAND_ARGS} arguments`);

export interface AgentCommand {
  /** What the command is, for messages: "the sudo grant", "the cron job", "nginx.service, which the timer starts". */
  what: string;
  program: string;
  args: readonly string[];
}

/** Why the command is refused, as the typed error its action throws. */
export interface CommandRefusal {
  category: ErrorCategory;
  code: string;
  message: string;
  hint: string;
}

const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46];

const mode4 = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/** Why a file is not root's alone (owned by root, writable by root only), or null. */
function notRootsAlone(st: { uid: number; mode: number }): string | null {
  if (st.uid !== 0) return `it belongs to uid ${st.uid}, not root`;
  if ((st.mode & 0o022) !== 0) return `it is writable by its group or by others (mode ${mode4(st.mode)})`;
  return null;
}

/** The trusted-path rule (./trusted-path.ts, through the host) as a reason, or null. */
async function untrustedPath(host: Host, path: string): Promise<string | null> {
  try {
    await host.trustedPath(path);
    return null;
  } catch (e) {
    if (e instanceof AirlockError) return e.message;
    throw e;
  }
}

/** Why the file at a program's path is not what the table means, or null. */
async function programFileRefusal(host: Host, program: string): Promise<string | null> {
  const why = await untrustedPath(host, program);
  if (why) return why;
  const st = await host.stat(program);
  if (!st) return `${program} does not exist`;
  if (!st.isFile) return `${program} is not a regular file`;
  const owner = notRootsAlone(st);
  if (owner) return `${program}: ${owner}`;
  if ((st.mode & 0o111) === 0) return `${program} is not executable`;
  return null;
}

const SCRIPT_HINT = 'a person writes the sudo rule, cron line or unit by hand';

/** Why this command must not be run on the agent's behalf, or null. Reads the host; changes nothing. */
export async function agentCommandRefusal(host: Host, cmd: AgentCommand): Promise<CommandRefusal | null> {
  const { what, program } = cmd;
  const refuse = (category: ErrorCategory, code: string, why: string, hint: string): CommandRefusal => ({
    category,
    code,
    message: `refusing ${what}: ${why}`,
    hint,
  });
  const grammars = AGENT_GRAMMARS.get(program);
  if (!grammars) {
    const why = `${program} is not one of the programs Airlock lets root run later on the agent's behalf`;
    return refuse('authorization', 'program_refused', `${why}; these are, each with its usage: ${allowedText()}`, `use one of these as shown; ${SCRIPT_HINT}`);
  }
  const repair = 'a person repairs the program file (root-owned, writable by root alone, no link on its path)';
  const file = await programFileRefusal(host, program);
  if (file) return refuse('validation', 'untrusted_program', file, repair);
  const head = await host.fileHead(program, ELF_MAGIC.length);
  if (!head) return refuse('validation', 'untrusted_program', `${program} could not be opened without following a link`, repair);
  if (head.links !== 1) {
    const why = `${program} has ${head.links} names (hard links): it may be another program under a harmless name`;
    return refuse('validation', 'untrusted_program', why, 'a person removes the second name');
  }
  if (!ELF_MAGIC.every((b, i) => head.head[i] === b)) {
    const script = head.head[0] === 0x23 && head.head[1] === 0x21; // "#!"
    const is = script ? 'a script: what runs is its interpreter, reading a file' : 'not an ELF executable';
    return refuse('validation', 'not_a_binary', `${program} is ${is}`, SCRIPT_HINT);
  }
  if (cmd.args.length > MAX_COMMAND_ARGS) return refuse('validation', 'bad_argument', `more than ${MAX_COMMAND_ARGS} arguments`, 'name fewer arguments');
  for (const arg of cmd.args) {
    const syntax = commandArgument.safeParse(arg);
    if (!syntax.success) return refuse('validation', 'bad_argument', `argument ${JSON.stringify(arg)}: ${syntax.error.issues[0]!.message}`, 'fix the argument');
  }
  const matches = grammars.map((g) => matchGrammar(g, cmd.args));
  const fit = matches.find((m) => 'paths' in m);
  if (!fit) {
    const whys = matches.map((m, i) => `${grammars[i]!.usage}: ${'why' in m ? m.why : ''}`).join('; ');
    const types = typesText(program);
    const why = `${[program, ...cmd.args].join(' ')} fits none of the usage lines Airlock allows for it (${whys})${types ? `; ${types}` : ''}`;
    return refuse('authorization', 'arguments_refused', why, `write the arguments as one of: ${grammars.map((g) => g.usage).join('; ')}`);
  }
  for (const p of fit.paths) {
    const why = await typedPathRefusal(host, p);
    if (why) return refuse('validation', 'untrusted_argument', `argument ${p.path}: ${why}`, `name ${p.type.describe}`);
  }
  return null;
}

/** Why a file an argument names fails its type (the trusted-path rule, then what the type asks), or null. */
async function typedPathRefusal(host: Host, { path, type }: TypedPath): Promise<string | null> {
  if (!normalisedAbsolute(path)) return "it is not an absolute, normalised path (no '..', '.', '//' or trailing '/')";
  // A directory acted on below is an ancestor of what is acted on: the rule asks it be root's too.
  const untrusted = await untrustedPath(host, type.path === 'dir' ? (path === '/' ? '/*' : `${path}/*`) : path);
  if (untrusted) return untrusted;
  const st = await host.stat(path);
  // A program handed to a program is a program run by it: no argument names an executable file.
  if (st?.isFile && (st.mode & 0o111) !== 0) return 'it names an executable file: the program would be handed another program';
  if (type.path === 'dir' && !st?.isDir) return 'it is not an existing directory';
  if (type.path === 'config') {
    if (!st?.isFile) return 'it is not an existing regular file';
    const owner = notRootsAlone(st);
    if (owner) return `root runs what it says, yet ${owner}`;
  }
  return null;
}

/** Throws the refusal as its typed error (nothing when null). */
export function throwRefusal(r: CommandRefusal | null): void {
  if (r) throw new AirlockError(r.category, r.code, r.message, r.hint);
}
