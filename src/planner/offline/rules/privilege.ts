/** Rules of the privilege family: who may sudo, one-command grants, and checking the policy. */
import { missing, rule, step, steps, takeGroup, takeUnit, takeUser } from '../rule.js';
import { type Clause } from '../words.js';

const SUDO = ['sudo', 'sudoers', 'sudo rules', 'sudo grants', 'root access', 'sudo access', 'sudo rights', 'privileges', 'admin rights'];

/** Verbs a grant can name through systemctl ("let deploy restart nginx"). */
const SYSTEMCTL_VERBS = ['restart', 'reload', 'start', 'stop', 'status'];

function programAndArgs(c: Clause, ctx: Parameters<typeof takeUnit>[1]): { program: string; args: string[] } | null {
  const at = c.tokens.findIndex((t) => !t.used && !t.literal && /^(\/[A-Za-z0-9_+][A-Za-z0-9._+-]*)+$/.test(t.raw) && /^\/(usr\/)?s?bin\//.test(t.raw));
  if (at >= 0) {
    c.tokens[at]!.used = true;
    // The arguments are the words right after the program, up to the first word about sudo itself.
    const args: string[] = [];
    for (const t of c.tokens.slice(at + 1)) {
      if (t.used || t.literal || !/^[A-Za-z0-9._/@+=:,-]+$/.test(t.raw) || ['with', 'sudo', 'as', 'via', 'using', 'and', 'without', 'nopasswd', 'for'].includes(t.low) || args.length >= 32) break;
      t.used = true;
      args.push(t.raw);
    }
    return { program: c.tokens[at]!.raw, args };
  }
  const verb = c.takeAny(SYSTEMCTL_VERBS);
  if (verb !== null) {
    const unit = takeUnit(c, ctx);
    if (unit !== null) return { program: '/usr/bin/systemctl', args: [verb, unit] };
  }
  return null;
}

export const privilegeRules = [
  rule('privilege.list', [SUDO], () => steps(step('ListSudoGrants', {}, 'the rules of the sudo policy')),
    { also: ['who', 'can', 'has', 'have', 'list', 'show', 'which', 'users', 'all', 'here', 'the', 'rules', 'use', 'run', 'as', 'root'], unless: ['check', 'validate', 'verify', 'visudo', 'revoke', 'remove', 'delete', 'let', 'allow', 'grant', 'give'] }),
  rule('privilege.for-user', [SUDO, ['what', 'may', 'allowed', 'can']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? steps(step('ListSudoGrants', {}, 'the rules of the sudo policy')) : steps(step('ShowSudoPolicyFor', { user }, `the sudo rules that apply to ${user}`));
  }, { also: ['run', 'do', 'with', 'is', 'to', 'show', 'as', 'root', 'use'], unless: ['let', 'allow', 'grant', 'give', 'who', 'check', 'validate'] }),
  rule('privilege.grant', [['let', 'allow', 'grant', 'give', 'permit'], ['sudo', 'as root', 'with sudo', 'via sudo', 'root']], (c, ctx) => {
    const nopasswd = c.takeAny(['without a password', 'without password', 'nopasswd', 'no password', 'passwordless']) !== null;
    const group = takeGroup(c);
    const user = group === null ? takeUser(c, ctx) : null;
    const cmd = programAndArgs(c, ctx);
    if (user === null && group === null) return missing('who gets the grant (a user, or a group)');
    if (cmd === null) return missing('the one program (an absolute path) and its exact arguments');
    const who = user ?? `%${group}`;
    const name = `${(user ?? group)!}-${cmd.program.split('/').pop()}${cmd.args[0] !== undefined ? `-${cmd.args[0]}` : ''}`.toLowerCase().replace(/[^a-z0-9_-]/g, '-').slice(0, 40);
    return steps(step('CreateSudoGrant', { name, ...(user !== null ? { user } : { group }), program: cmd.program, args: cmd.args, ...(nopasswd ? { nopasswd } : {}) }, `let ${who} run ${[cmd.program, ...cmd.args].join(' ')} as root`));
  }, { also: ['run', 'to', 'use', 'only', 'with', 'as', 'execute'], unless: ["don't", 'dont', 'not', 'never', 'ssh', 'log in', 'login'] }),
  rule('privilege.revoke', [['revoke', 'remove', 'delete', 'drop', 'withdraw'], ['sudo grant', 'grant', 'sudo rule', 'sudo']], (c) => {
    const name = c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9_-]{0,39}$/.test(t.low));
    return name === null ? missing('which grant (its name, as ListSudoGrants shows it)') : steps(step('RevokeSudoGrant', { name: name.toLowerCase() }, `remove the sudo grant ${name}`));
  }, { also: ['the', 'called', 'named'] }),
  rule('privilege.validate', [['check', 'validate', 'verify', 'visudo', 'lint', 'test', 'valid', 'syntax'], ['sudoers', 'sudo policy', 'sudo config', 'sudo configuration', 'sudo']], () => steps(step('ValidateSudoers', {}, 'check the whole sudo policy with visudo')), { also: ['the', 'file', 'is', 'for', 'errors', 'syntax'] }),
];
