/**
 * Privilege: scoped sudo grants. A grant is one drop-in, /etc/sudoers.d/60-airlock-NAME
 * (0440 root:root), holding one rule for ONE command line with its exact arguments:
 * `PRINCIPAL ALL=(root) NOEXEC: [NOPASSWD: ]PROGRAM ARG...` (`PROGRAM ""` for none), so sudo
 * allows that line and nothing else; a grant with free arguments cannot be expressed.
 * The command passes the one check for commands run on the agent's behalf
 * (../lib/agent-command.ts: a root-owned ELF program in a system binary directory,
 * not a shell, interpreter or program runner, its arguments fixed and its files root's).
 * The candidate file is checked with `visudo -c -f` and then the whole policy with
 * `visudo -c`; either failing fails the job and the executor restores the previous state.
 * Airlock never runs sudo itself: ShowSudoPolicyFor asks cvtsudoers which rules match.
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type GroupEntry, type Host, type PasswdEntry } from '../action.js';
import { command, fileDelete, fileWrite } from '../mechanism.js';
import { groupName, params, token, userName } from '../params.js';
import { agentCommandRefusal, commandArgument, commandArguments, MAX_COMMAND_ARGS, throwRefusal, type CommandRefusal } from '../lib/agent-command.js';
import { listDirectory } from '../lib/host-files.js';
import { requireGroup, requireUser } from '../lib/accounts.js';

// ---------------------------------------------------------------- files and names

const SUDOERS = '/etc/sudoers';
const SUDOERS_D = '/etc/sudoers.d';
const GRANT_PREFIX = '60-airlock-';
const GRANT_FILES = [`${SUDOERS_D}/${GRANT_PREFIX}*`];
export const grantPath = (name: string) => `${SUDOERS_D}/${GRANT_PREFIX}${name}`;

/** The NAME of /etc/sudoers.d/60-airlock-NAME. No dot: sudo skips drop-ins whose name has one. */
export const grantName = token(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'grant name (lower-case letters, digits, _ and -)', 40);

/**
 * An absolute program path: letters, digits and . _ + - in each segment, no segment
 * starting with '.' (so no '.' or '..'), nothing sudoers treats as a wildcard or separator.
 */
export const programPath = token(/^(\/[A-Za-z0-9_+][A-Za-z0-9._+-]*)+$/, 'program path (absolute; letters, digits and . _ + - only, no wildcards)', 255);

// ---------------------------------------------------------------- sudo's own state

interface SudoState {
  /** /etc/sudoers exists. */
  installed: boolean;
  /** /etc/sudoers has `@includedir /etc/sudoers.d` (or the old `#includedir`). */
  readsDropins: boolean;
  /** `visudo -c` passes on the whole policy as it is now. */
  valid: boolean;
}

export async function readSudo(host: Host, validate: boolean): Promise<SudoState> {
  const main = await host.readFile(SUDOERS);
  if (main === null) return { installed: false, readsDropins: false, valid: false };
  const readsDropins = main.split('\n').some((l) => /^\s*[@#]includedir\s+\/etc\/sudoers\.d\/?\s*$/.test(l));
  const valid = validate ? (await host.run('visudo', ['--check', '--quiet'])).code === 0 : true;
  return { installed: true, readsDropins, valid };
}

export function refuseWithoutSudo(s: SudoState): void {
  if (!s.installed) throw new AirlockError('unsupported_platform', 'sudo_missing', `sudo is not installed on this host (there is no ${SUDOERS})`, 'install the sudo package');
}

/** The refusals every change shares: sudo is there and its policy is valid now (so a failing check afterwards is ours). */
function refuseUnchangeable(s: SudoState): void {
  refuseWithoutSudo(s);
  if (!s.valid) {
    throw new AirlockError('conflict', 'sudoers_invalid', 'visudo -c already reports an error in the sudo policy; Airlock changes it only while it is valid', 'a person fixes it with visudo, from a console');
  }
}

// ---------------------------------------------------------------- one grant

export interface Grant {
  principal: { kind: 'user' | 'group'; name: string };
  /** The one command line the grant allows: a program and its exact arguments (none: []). */
  program: string;
  args: string[];
  nopasswd: boolean;
}

const principalText = (g: Grant) => (g.principal.kind === 'user' ? g.principal.name : `group ${g.principal.name}`);
/** The command line as a person reads it (the arguments need no quoting: commandArgument has no spaces or quotes). */
export const commandText = (g: Pick<Grant, 'program' | 'args'>) => [g.program, ...g.args].join(' ');

/**
 * An argument as a sudoers Cmnd writes it: sudoers wants ',', ':', '=' and '\\' escaped with
 * a backslash in command arguments (sudoers(5), "Command line arguments"); commandArgument
 * admits no backslash, wildcard, space or quote, so nothing else needs escaping.
 */
const sudoersArg = (a: string) => a.replace(/[,:=]/g, (c) => `\\${c}`);

/** The sudoers Cmnd of a grant: the program and its exact arguments, or `""` for "no arguments at all". */
export function grantCommand(g: Pick<Grant, 'program' | 'args'>): string {
  return `${g.program} ${g.args.length ? g.args.map(sudoersArg).join(' ') : '""'}`;
}

/** The sudoers rule of a grant: `alice ALL=(root) NOEXEC: NOPASSWD: /usr/bin/df -h /` (% before a group). */
export function grantRule(g: Grant): string {
  const who = g.principal.kind === 'group' ? `%${g.principal.name}` : g.principal.name;
  // NOEXEC: the command cannot start another program (sudo's seccomp filter): a pager's `!sh`, a
  // login program, a hook or a helper it would run is refused by the kernel, whatever the table missed.
  return `${who} ALL=(root) NOEXEC: ${g.nopasswd ? 'NOPASSWD: ' : ''}${grantCommand(g)}`;
}

/** The whole drop-in: a header naming the grant, then its one rule. Deterministic (no dates). */
export function grantFileText(name: string, g: Grant): string {
  return `# Airlock sudo grant "${name}": written by CreateSudoGrant, removed by RevokeSudoGrant; do not edit.\n${grantRule(g)}\n`;
}

const RULE = /^(%?)([a-z_][a-z0-9_-]*) ALL=\(root\) NOEXEC: (NOPASSWD: )?(\/\S+)((?: \S+)+)$/;

/** Reads the rule back out of a drop-in Airlock wrote; null when the text is not exactly in that shape. */
export function parseGrantFile(text: string): Grant | null {
  const rules = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const m = rules.length === 1 ? RULE.exec(rules[0]!) : null;
  if (!m || !programPath.safeParse(m[4]).success) return null;
  const words = m[5]!.slice(1).split(' ');
  const args = words.length === 1 && words[0] === '""' ? [] : words.map((w) => w.replace(/\\([,:=])/g, '$1'));
  if (!commandArguments.safeParse(args).success) return null;
  const g: Grant = { principal: { kind: m[1] ? 'group' : 'user', name: m[2]! }, nopasswd: m[3] !== undefined, program: m[4]!, args };
  // Only text this module would write back byte for byte counts as Airlock's.
  return grantRule(g) === rules[0] ? g : null;
}

interface GrantFileState {
  path: string;
  exists: boolean;
  /** A regular file (not a symbolic link, directory or device). */
  regular: boolean;
  mode: number | null;
  grant: Grant | null;
}

async function readGrantFile(host: Host, name: string): Promise<GrantFileState> {
  const path = grantPath(name);
  const st = await host.stat(path);
  if (!st) return { path, exists: false, regular: false, mode: null, grant: null };
  const text = st.isFile && !st.isSymlink ? await host.readFile(path) : null;
  return { path, exists: true, regular: st.isFile && !st.isSymlink, mode: st.mode, grant: text === null ? null : parseGrantFile(text) };
}

// ---------------------------------------------------------------- the policy as sudo reads it

/** Lines grep drops from a listing: blank ones and comments (a '#' not starting `#include` or a `#UID`). */
const BLANK_LINE = '^[[:space:]]*$';
const COMMENT_LINE = '^[[:space:]]*#([^0-9i]|i[^n]|in[^c]|$)';

interface PolicyFiles {
  sudo: SudoState;
  /** /etc/sudoers, then the drop-ins sudo reads, in sudo's (lexical) order. */
  files: string[];
  grants: string[];
  /** Drop-ins with unusual names (spaces, escapes) sudo may read but this listing leaves out. */
  unlisted: number;
}

/** Drop-in names sudo reads: it skips names that end in '~' or contain '.'. */
const sudoReads = (name: string) => !name.endsWith('~') && !name.includes('.');
const PLAIN_NAME = /^[A-Za-z0-9_@+-]+$/;

async function readPolicyFiles(host: Host): Promise<PolicyFiles> {
  const sudo = await readSudo(host, false);
  const names = sudo.installed && sudo.readsDropins ? ((await listDirectory(host, SUDOERS_D)) ?? []).filter(sudoReads).sort() : [];
  const plain = names.filter((n) => PLAIN_NAME.test(n));
  return {
    sudo,
    files: [SUDOERS, ...plain.map((n) => `${SUDOERS_D}/${n}`)],
    grants: plain.filter((n) => n.startsWith(GRANT_PREFIX)).map((n) => n.slice(GRANT_PREFIX.length)),
    unlisted: names.length - plain.length,
  };
}

// ---------------------------------------------------------------- actions

export const listSudoGrants = action({
  name: 'ListSudoGrants',
  family: 'privilege',
  description: 'List the rules of the sudo policy (/etc/sudoers and the drop-ins sudo reads), each line with its file and line number; Airlock grants are the 60-airlock-* files.',
  // Medium: it reveals who can become root, and how.
  risk: 'medium',
  readOnly: true,
  // Sensitive: the sudo policy's rules: who can become root, and how.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readPolicyFiles(host),
  check: (_p, cur) => refuseWithoutSudo(cur.sudo),
  preview: (_p, cur) => ({
    summary: `Read the sudo policy: ${SUDOERS} and ${cur.files.length - 1} drop-in(s) in ${SUDOERS_D} (${cur.grants.length} Airlock grant(s))`,
    change: null,
    warnings: [
      ...(cur.sudo.readsDropins ? [] : [`${SUDOERS} does not include ${SUDOERS_D}: sudo ignores the drop-ins there`]),
      ...(cur.unlisted ? [`${cur.unlisted} drop-in(s) with unusual names are not listed, though sudo reads them`] : []),
    ],
  }),
  mechanism: (_p, cur) => [command('grep', ['-H', '-n', '-v', '-E', '-e', BLANK_LINE, '-e', COMMENT_LINE, '--', ...cur.files], { okCodes: [0, 1] })],
});

export const showSudoPolicyFor = action({
  name: 'ShowSudoPolicyFor',
  family: 'privilege',
  description: 'Show the sudo rules and defaults that apply to one user, directly or through a group (cvtsudoers; sudo itself is not run).',
  risk: 'medium',
  readOnly: true,
  // Sensitive: the sudo policy's rules for one user.
  sensitive: true,
  reachesNetwork: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'deploy' },
  current: async ({ user }, host) => ({ user: await requireUser(host, user), sudo: await readSudo(host, false) }),
  check: (_p, cur) => refuseWithoutSudo(cur.sudo),
  preview: ({ user }) => ({ summary: `Show the sudo rules that apply to ${user}`, change: null }),
  // -m user=NAME -M: rules naming the user, or a group the passwd and group files put them in; -p: only those names.
  mechanism: ({ user }) => [command('cvtsudoers', ['-f', 'sudoers', '-M', '-p', '-m', `user=${user}`, '--', SUDOERS])],
});

const grantParams = params({
  name: grantName,
  user: userName.optional(),
  group: groupName.optional(),
  /** The program, by its real absolute path. */
  program: programPath,
  /**
   * Its exact arguments, [] for none. Required: sudo lets a rule without arguments take any,
   * and a program whose arguments the holder chooses does what the holder chooses.
   */
  args: z
    .array(commandArgument, { error: (i) => (i.input === undefined ? 'name the exact arguments ([] for none): a grant with free arguments lets its holder choose what the program does' : 'args is a list of arguments') })
    .max(MAX_COMMAND_ARGS, `at most ${MAX_COMMAND_ARGS} arguments`)
    .describe('the exact arguments, [] for none; sudo then allows this command line and no other'),
  /** sudo asks the user's password unless this is true. */
  nopasswd: z.boolean().optional(),
}).refine((p) => (p.user === undefined) !== (p.group === undefined), 'name exactly one of user or group');

type GrantParams = z.infer<typeof grantParams>;
const grantOf = (p: GrantParams): Grant => ({
  principal: p.user !== undefined ? { kind: 'user', name: p.user } : { kind: 'group', name: p.group! },
  program: p.program,
  args: p.args,
  nopasswd: p.nopasswd === true,
});

interface CreateState {
  sudo: SudoState;
  file: GrantFileState;
  user: PasswdEntry | null;
  group: GroupEntry | null;
  /** Why the command line may not be granted (../lib/agent-command.ts), or null. */
  refusal: CommandRefusal | null;
}

export const createSudoGrant = action({
  name: 'CreateSudoGrant',
  family: 'privilege',
  description:
    'Let one user or group run one command line as root with sudo, with exactly the arguments named (none: []) and no others, through a drop-in /etc/sudoers.d/60-airlock-NAME checked with visudo. The program must be a root-owned ELF executable in a system binary directory and not a shell, interpreter or program runner.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: grantParams,
  files: GRANT_FILES,
  example: { name: 'deploy-df', user: 'deploy', program: '/usr/bin/df', args: ['-h', '/srv'], nopasswd: false },
  current: async (p, host): Promise<CreateState> => ({
    sudo: await readSudo(host, true),
    file: await readGrantFile(host, p.name),
    user: p.user !== undefined ? await requireUser(host, p.user) : null,
    group: p.group !== undefined ? await requireGroup(host, p.group) : null,
    refusal: await agentCommandRefusal(host, { what: 'the sudo grant', program: p.program, args: p.args, argsFrom: 'agent' }),
  }),
  check: (p, cur) => {
    refuseUnchangeable(cur.sudo);
    if (!cur.sudo.readsDropins) {
      throw new AirlockError('conflict', 'dropins_ignored', `${SUDOERS} has no "@includedir ${SUDOERS_D}" line, so sudo would ignore the grant`, `a person adds "@includedir ${SUDOERS_D}" to ${SUDOERS} with visudo`);
    }
    if (cur.file.exists) {
      throw new AirlockError('conflict', 'grant_exists', `there is already a grant ${p.name} (${cur.file.path})`, 'choose another name, or revoke it first with RevokeSudoGrant');
    }
    if (cur.user && cur.user.uid === 0) throw new AirlockError('authorization', 'root_grant', `${cur.user.name} is root already; Airlock does not write sudo rules for root`);
    if (cur.group && cur.group.gid === 0) throw new AirlockError('authorization', 'root_grant', 'group root (gid 0) is not given sudo rules by Airlock');
    throwRefusal(cur.refusal);
  },
  preview: (p, cur) => {
    const g = grantOf(p);
    const who = principalText(g);
    return {
      summary: `Let ${who} run \`${commandText(g)}\` as root with sudo${g.nopasswd ? ' without a password' : ''} (grant ${p.name})`,
      change: {
        file: cur.file.path,
        mode: '0440',
        owner: 'root:root',
        rule: grantRule(g),
        command: { program: g.program, args: g.args },
        text: `writes ${cur.file.path} (0440 root:root) holding \`${grantRule(g)}\`, checks it with visudo --check --file, then the whole policy with visudo --check; if either check fails the file is removed again`,
      },
      sideEffects: [
        `from the next sudo call on, ${who} can run \`${commandText(g)}\` as root: exactly ${g.args.length ? 'these arguments' : 'no arguments'}, and sudo refuses any other`,
        'the program runs with the caller\'s terminal, standard input and working directory: judge what it does with those',
      ],
      warnings: [
        ...(g.nopasswd ? [`NOPASSWD: sudo asks no password, so any process running as ${who} (an agent's shell included) can run these as root without a person`] : []),
        ...(cur.group ? [`every member of group ${cur.group.name} (now: ${cur.group.members.join(', ') || 'none listed in /etc/group'}) gets this grant, and anyone who joins it later`] : []),
        ...(cur.user && cur.user.uid < 1000 ? [`${cur.user.name} is a system account (uid ${cur.user.uid})`] : []),
      ],
    };
  },
  mechanism: (p, cur) => [
    fileWrite(cur.file.path, grantFileText(p.name, grantOf(p)), { mode: 0o440, owner: { uid: 0, gid: 0 } }),
    // Long options (--check is -c): the file is the argument of --file, where visudo takes no `--` (the path starts with '/').
    // --quiet: a syntax error would echo the sudoers line; the exit status is what counts.
    command('visudo', ['--check', '--quiet', '--file', cur.file.path]),
    command('visudo', ['--check', '--quiet']),
  ],
});

export const revokeSudoGrant = action({
  name: 'RevokeSudoGrant',
  family: 'privilege',
  description: 'Remove one Airlock sudo grant (its drop-in /etc/sudoers.d/60-airlock-NAME), then check the whole policy with visudo.',
  risk: 'high',
  rollback: true,
  readOnly: false,
  params: params({ name: grantName }),
  files: GRANT_FILES,
  example: { name: 'deploy-restart' },
  current: async ({ name }, host) => ({ sudo: await readSudo(host, true), file: await readGrantFile(host, name) }),
  check: ({ name }, cur) => {
    refuseUnchangeable(cur.sudo);
    if (!cur.file.exists) throw new AirlockError('conflict', 'no_such_grant', `there is no Airlock grant ${name} (${cur.file.path})`, 'ListSudoGrants lists them');
    if (!cur.file.regular) throw new AirlockError('conflict', 'not_a_file', `${cur.file.path} is not a regular file`, 'a person removes it by hand');
  },
  preview: ({ name }, cur) => ({
    summary: cur.file.grant ? `Revoke sudo grant ${name}: ${principalText(cur.file.grant)} loses \`${commandText(cur.file.grant)}\`` : `Revoke sudo grant ${name}`,
    change: {
      file: cur.file.path,
      rule: cur.file.grant ? grantRule(cur.file.grant) : null,
      text: `deletes ${cur.file.path}, then checks the whole policy with visudo --check; if that fails the file is put back`,
    },
    sideEffects: ['the next sudo call for these programs is refused unless another rule allows it; commands already running keep running'],
    warnings: cur.file.grant ? [] : [`${cur.file.path} is not in the shape Airlock writes (edited by hand?): it is deleted all the same`],
  }),
  mechanism: (_p, cur) => [fileDelete(cur.file.path), command('visudo', ['--check', '--quiet'])],
});
