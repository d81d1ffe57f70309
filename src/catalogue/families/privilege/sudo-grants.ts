/**
 * Privilege: scoped sudo grants. A grant is one drop-in, /etc/sudoers.d/60-airlock-NAME
 * (0440 root:root), holding one rule for ONE command line with its exact arguments:
 * `PRINCIPAL ALL=(root) NOEXEC: [NOPASSWD: ]PROGRAM ARG...` (`PROGRAM ""` for none), so sudo
 * allows that line and nothing else; a grant with free arguments cannot be expressed
 * (./grant-file.ts). The command passes the one check for commands run on the agent's behalf
 * (../../lib/agent-command.ts: a program of the allowlist, its arguments fixed, fitting one
 * of its usage lines, and its files root's).
 * The candidate file is checked with `visudo -c -f` and then the whole policy with
 * `visudo -c`; either failing fails the job and the executor restores the previous state.
 * Airlock never runs sudo itself: ShowSudoPolicyFor asks cvtsudoers which rules match.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type GroupEntry, type PasswdEntry, unchanged } from '../../action.js';
import { command, fileDelete, fileWrite } from '../../mechanism.js';
import { groupName, params, userName } from '../../params.js';
import { agentCommandRefusal, commandArgument, MAX_COMMAND_ARGS, throwRefusal, type CommandRefusal } from '../../lib/agent-command.js';
import { requireGroup, requireUser } from '../../lib/accounts.js';
import { commandText, GRANT_FILES, grantFileText, grantName, grantRule, principalText, programPath, readGrantFile, type Grant, type GrantFileState } from './grant-file.js';
import { readSudo, refuseUnchangeable, SUDOERS, SUDOERS_D, type SudoState } from './sudo-state.js';
import { exact } from '../../rollback.js';

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
  /** Why the command line may not be granted (../../lib/agent-command.ts), or null. */
  refusal: CommandRefusal | null;
}

export const createSudoGrant = action({
  name: 'CreateSudoGrant',
  family: 'privilege',
  description:
    'Let one user or group run one command line as root with sudo, with exactly the arguments named (none: []) and no others, through a drop-in /etc/sudoers.d/60-airlock-NAME checked with visudo. The program and its arguments must fit the allowlist of programs and usage lines (a refusal lists it).',
  risk: 'high',
  rollback: exact(),
  readOnly: false,
  runsPrograms: true,
  params: grantParams,
  files: GRANT_FILES,
  example: { name: 'deploy-df', user: 'deploy', program: '/usr/bin/df', args: ['-h', '/srv'], nopasswd: false },
  current: async (p, host): Promise<CreateState> => ({
    sudo: await readSudo(host, true),
    file: await readGrantFile(host, p.name),
    user: p.user !== undefined ? await requireUser(host, p.user) : null,
    group: p.group !== undefined ? await requireGroup(host, p.group) : null,
    refusal: await agentCommandRefusal(host, { what: 'the sudo grant', program: p.program, args: p.args }),
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
    command('visudo', ['--check', '--quiet', '--file', cur.file.path], { noUndo: 'changes_nothing' }),
    command('visudo', ['--check', '--quiet'], { noUndo: 'changes_nothing' }),
  ],
});

export const revokeSudoGrant = action({
  name: 'RevokeSudoGrant',
  family: 'privilege',
  description: 'Remove one Airlock sudo grant (its drop-in /etc/sudoers.d/60-airlock-NAME), then check the whole policy with visudo.',
  risk: 'high',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ name: grantName }),
  files: GRANT_FILES,
  example: { name: 'deploy-restart' },
  current: async ({ name }, host) => ({ sudo: await readSudo(host, true), file: await readGrantFile(host, name) }),
  check: ({ name }, cur) => {
    refuseUnchangeable(cur.sudo);
    if (!cur.file.exists) return unchanged(`there is no Airlock grant ${name} (${cur.file.path})`);
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
  mechanism: (_p, cur) => [fileDelete(cur.file.path), command('visudo', ['--check', '--quiet'], { noUndo: 'changes_nothing' })],
});
