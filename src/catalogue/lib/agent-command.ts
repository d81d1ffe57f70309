/**
 * The one check for every command line the host will run on the agent's behalf later,
 * outside Airlock's executor: a sudo grant, a cron job, the commands of the service a
 * timer starts. Root runs them (or a user through sudo) long after the approval, with
 * whatever stdin, terminal and working directory that caller has, so the program and
 * every argument are fixed now and must hold no way out:
 *
 * - the program is an absolute path directly in a system binary directory
 *   (PROGRAM_DIRS), every component real (no symbolic link), root-owned and writable
 *   by root alone, the file an ordinary ELF executable with one name (a script runs
 *   its interpreter; a hard link is a second name for possibly another program);
 * - it is not in the table of shells, interpreters and program runners
 *   (./program-runners.ts), whatever its arguments;
 * - arguments the agent wrote (argsFrom 'agent') use a small alphabet that neither
 *   sudoers nor cron's /bin/sh reads anything into (commandArgument), and every file
 *   they name is an absolute path that root alone controls, every existing component
 *   checked like the program's. A unit's own command lines (argsFrom 'unit') were
 *   written by root; only their programs are checked.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError, type ErrorCategory } from '../../protocol/errors.js';
import type { Host } from '../action.js';
import { programRunner } from './program-runners.js';

/** Where a program the agent names may live: the system's binary directories, directly. */
export const PROGRAM_DIRS = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin', '/bin', '/sbin'];
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
  /** Who wrote the arguments: the agent (checked here) or root, in a unit file a timer only schedules. */
  argsFrom: 'agent' | 'unit';
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
  const runner = programRunner(program);
  if (runner) {
    return refuse('authorization', 'program_refused', `${program} ${runner.why}, so running it for the agent is running anything`, 'name a program that does one fixed job; a person does the rest by hand');
  }
  if (!normalisedAbsolute(program) || !PROGRAM_DIRS.includes(posix.dirname(program))) {
    return refuse('validation', 'program_location', `${program} is not directly in ${PROGRAM_DIRS.join(', ')}`, 'install the program, root-owned, in /usr/local/bin or /usr/local/sbin');
  }
  const untrusted = await untrustedPath(host, program, true);
  if (untrusted) return refuse('validation', 'untrusted_program', untrusted, 'name a root-owned program by its real path (e.g. /usr/bin/..., not /bin/... on a merged-/usr system)');
  const st = (await host.stat(program))!;
  if (!st.isFile) return refuse('validation', 'untrusted_program', `${program} is not a regular file`, 'name a program file');
  if ((st.mode & 0o111) === 0) return refuse('validation', 'untrusted_program', `${program} is not executable`, 'name an executable program');
  const head = await host.fileHead(program, ELF_MAGIC.length);
  if (!head) return refuse('validation', 'untrusted_program', `${program} could not be opened without following a link`, 'name the real path');
  if (head.links !== 1) return refuse('validation', 'untrusted_program', `${program} has ${head.links} names (hard links): it may be another program under a harmless name`, 'name a program file with a single name');
  if (!ELF_MAGIC.every((b, i) => head.head[i] === b)) {
    const script = head.head[0] === 0x23 && head.head[1] === 0x21; // "#!"
    return refuse(
      'validation',
      'not_a_binary',
      `${program} is ${script ? 'a script: what runs is its interpreter, reading a file' : 'not an ELF executable'}`,
      'name a compiled program; for a script, a person writes the sudo rule, cron line or unit by hand',
    );
  }
  if (cmd.argsFrom === 'agent') {
    if (cmd.args.length > MAX_COMMAND_ARGS) return refuse('validation', 'bad_argument', `more than ${MAX_COMMAND_ARGS} arguments`, 'name fewer arguments');
    for (const arg of cmd.args) {
      const syntax = commandArgument.safeParse(arg);
      if (!syntax.success) return refuse('validation', 'bad_argument', `argument ${JSON.stringify(arg)}: ${syntax.error.issues[0]!.message}`, 'fix the argument');
      const path = argumentPath(arg);
      const why = path === null ? null : await untrustedPath(host, path, false);
      if (why) return refuse('validation', 'untrusted_argument', `argument ${arg} names a file someone other than root can change or redirect: ${why}`, 'name files under root-owned directories that only root can write');
      // A program handed to a program is a program run by it (apt-get -oDir::Bin::dpkg=/bin/sh, agetty -l /bin/sh): refused whatever the first one is.
      const target = path === null ? null : await host.stat(path);
      if (target?.isFile && (target.mode & 0o111) !== 0) return refuse('authorization', 'program_argument', `argument ${arg} names an executable file: the program would be handed another program to run`, 'name data files only; a person writes a rule that runs two programs by hand');
    }
  }
  return null;
}

/** Throws the refusal as its typed error (nothing when null). */
export function throwRefusal(r: CommandRefusal | null): void {
  if (r) throw new AirlockError(r.category, r.code, r.message, r.hint);
}
