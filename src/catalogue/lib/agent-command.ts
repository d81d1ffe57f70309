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
export const commandArgument = z
  .string()
  .min(1, 'an argument must not be empty')
  .max(255, 'an argument must be at most 255 characters')
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

/**
 * Why a path cannot be trusted to stay what it is, or null: from / down, every
 * component that exists is real (no symbolic link), owned by root and not writable by
 * group or others; a missing tail is fine (only root can create it under such a parent).
 * `mustExist` asks for the whole path to exist.
 */
export async function untrustedPath(host: Host, path: string, mustExist: boolean): Promise<string | null> {
  const segs = path.split('/').filter(Boolean);
  for (let i = 0; i <= segs.length; i++) {
    const at = '/' + segs.slice(0, i).join('/');
    const st = await host.stat(at);
    if (!st) return mustExist ? `${at} does not exist` : null;
    if (st.isSymlink) return `${at} is a symbolic link: name the real path (what it points to can change, and the name hides what runs)`;
    if (st.uid !== 0) return `${at} is not owned by root`;
    if ((st.mode & 0o022) !== 0) return `${at} is writable by its group or by others (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')})`;
    if (i < segs.length && !st.isDir) return `${at} is not a directory`;
  }
  return null;
}

/** Why this command must not be run on the agent's behalf, or null. Reads the host; changes nothing. */
export async function agentCommandRefusal(host: Host, cmd: AgentCommand): Promise<CommandRefusal | null> {
  const { what, program } = cmd;
  const refuse = (category: ErrorCategory, code: string, why: string, hint: string): CommandRefusal => ({ category, code, message: `refusing ${what}: ${why}`, hint });
  const grammars = AGENT_GRAMMARS.get(program);
  if (!grammars) {
    return refuse(
      'authorization',
      'program_refused',
      `${program} is not one of the programs Airlock lets root run later on the agent's behalf; these are, each with its usage: ${allowedText()}`,
      'use one of these programs as shown; a person writes any other sudo rule, cron line or unit by hand',
    );
  }
  const untrusted = await untrustedPath(host, program, true);
  if (untrusted) return refuse('validation', 'untrusted_program', untrusted, 'a person repairs the program file (root-owned, writable by root alone, no link on its path)');
  const st = (await host.stat(program))!;
  if (!st.isFile) return refuse('validation', 'untrusted_program', `${program} is not a regular file`, 'a person repairs the program file');
  if ((st.mode & 0o111) === 0) return refuse('validation', 'untrusted_program', `${program} is not executable`, 'a person repairs the program file');
  const head = await host.fileHead(program, ELF_MAGIC.length);
  if (!head) return refuse('validation', 'untrusted_program', `${program} could not be opened without following a link`, 'a person repairs the program file');
  if (head.links !== 1) return refuse('validation', 'untrusted_program', `${program} has ${head.links} names (hard links): it may be another program under a harmless name`, 'a person removes the second name');
  if (!ELF_MAGIC.every((b, i) => head.head[i] === b)) {
    const script = head.head[0] === 0x23 && head.head[1] === 0x21; // "#!"
    return refuse('validation', 'not_a_binary', `${program} is ${script ? 'a script: what runs is its interpreter, reading a file' : 'not an ELF executable'}`, 'a person writes the sudo rule, cron line or unit by hand');
  }
  if (cmd.args.length > MAX_COMMAND_ARGS) return refuse('validation', 'bad_argument', `more than ${MAX_COMMAND_ARGS} arguments`, 'name fewer arguments');
  for (const arg of cmd.args) {
    const syntax = commandArgument.safeParse(arg);
    if (!syntax.success) return refuse('validation', 'bad_argument', `argument ${JSON.stringify(arg)}: ${syntax.error.issues[0]!.message}`, 'fix the argument');
  }
  const matches = grammars.map((g) => matchGrammar(g, cmd.args));
  const fit = matches.find((m) => 'paths' in m);
  if (!fit) {
    const whys = matches.map((m, i) => `${grammars[i]!.usage}: ${'why' in m ? m.why : ''}`);
    const types = typesText(program);
    return refuse(
      'authorization',
      'arguments_refused',
      `${[program, ...cmd.args].join(' ')} fits none of the usage lines Airlock allows for it (${whys.join('; ')})${types ? `; ${types}` : ''}`,
      `write the arguments as one of: ${grammars.map((g) => g.usage).join('; ')}`,
    );
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
  const judged = type.path === 'dir' ? (path === '/' ? '/*' : `${path}/*`) : path;
  try {
    await host.trustedPath(judged);
  } catch (e) {
    if (e instanceof AirlockError) return `${e.message} (someone other than root could change or redirect it)`;
    throw e;
  }
  const st = await host.stat(path);
  // A program handed to a program is a program run by it: no argument names an executable file.
  if (st?.isFile && (st.mode & 0o111) !== 0) return 'it names an executable file: the program would be handed another program';
  if (type.path === 'dir' && !st?.isDir) return 'it is not an existing directory';
  if (type.path === 'config') {
    if (!st?.isFile) return 'it is not an existing regular file';
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) return `its content is run as root, yet it is not root's alone (uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')})`;
  }
  return null;
}

/** Throws the refusal as its typed error (nothing when null). */
export function throwRefusal(r: CommandRefusal | null): void {
  if (r) throw new AirlockError(r.category, r.code, r.message, r.hint);
}
