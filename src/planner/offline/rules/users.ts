/** Rules of the users family: local accounts, groups, password ageing and logins. */
import { missing, partly, remember, rule, step, steps, takeGroup, takeUser, takeUsers, type Built, type Context } from '../rule.js';
import { DATE, takeNumberAfter, takeNumberBefore, takeQuoted, takeSshKey, type Clause } from '../words.js';

const ACCOUNT = ['user', 'users', 'account', 'accounts', 'login', 'person'];

/** The login shells CreateUser and SetUserShell accept, by how people say them. */
function takeShell(c: Clause): string | null {
  const path = c.takeAny(['/bin/bash', '/bin/sh', '/usr/bin/bash', '/usr/sbin/nologin', '/bin/false']);
  if (path !== null) return path;
  if (c.takeAny(['nologin', 'no login', 'no shell', 'no-login'])) return '/usr/sbin/nologin';
  if (c.take('bash')) return '/bin/bash';
  if (c.take('sh')) return '/bin/sh';
  if (c.take('false')) return '/bin/false';
  return null;
}

const KEY_WORDS = ['key', 'ssh key', 'public key', 'keys', 'ssh keys', 'public keys', 'authorized key'];

/**
 * A new account and what the same words give it: a comment, a shell, groups, and a key
 * ("create bob with this key ssh-ed25519 ..."): CreateUser, then AddAuthorizedKey for the
 * account it creates. A key named but not written is a missing part, never dropped.
 */
function createUser(c: Clause, ctx: Context): Built {
  const shell = takeShell(c);
  const comment = takeQuoted(c);
  const key = takeSshKey(c);
  const keyNamed = c.saidAny(KEY_WORDS) !== null || key !== null; // said: the rule may have triggered on it
  const groups: string[] = [];
  for (let g = takeGroup(c); g !== null && groups.length < 16; g = takeGroup(c)) groups.push(g);
  const user = takeUser(c, ctx);
  if (user === null) return missing('the new user\'s name');
  const create = step('CreateUser', { user, ...(comment !== null ? { comment } : {}), ...(shell !== null ? { shell } : {}), ...(groups.length > 0 ? { groups } : {}) }, `create the account ${user}`);
  if (key !== null) return steps(create, step('AddAuthorizedKey', { user, key }, `let this ${key.split(' ')[0]} key log in as ${user}, once the account exists`));
  return partly([create], keyNamed ? [`the key for ${user}: the public key itself, written whole (ssh-ed25519 AAAA... comment)`] : []);
}

/** "put alice and bob in it", "add carol to it": the group a clause before named. */
function addToGroup(c: Clause, ctx: Context, group: string | null): Built {
  const users = takeUsers(c, ctx);
  if (group === null || users.length === 0) return missing('a user and a group (e.g. "add alice to the docker group")');
  return steps(...users.map((user) => step('AddUserToGroup', { user, group }, `add ${user} to ${group}`)));
}

export const usersRules = [
  rule('users.list', [['users', 'accounts', 'user accounts', 'passwd']], () => steps(step('ListUsers', {}, 'the local accounts')), { also: ['list', 'show', 'which', 'what', 'local', 'all', 'exist', 'existing', 'has', 'have'] }),
  rule('users.groups', [['groups', 'group membership', 'member of', 'groups of']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? steps(step('ListGroups', {}, 'the local groups and their members')) : steps(step('UserInfo', { user }, `the groups of ${user}`));
  }, { also: ['list', 'show', 'which', 'what', 'local', 'all', 'is', 'in', 'belong', 'belongs'] }),
  rule('users.info', [['uid', 'id', 'whois', 'info', 'information', 'details', 'about'], ['user', 'account']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('which user') : steps(step('UserInfo', { user }, `uid and groups of ${user}`));
  }, { also: ['show', 'the', 'of'] }),
  rule('users.create', [['create', 'add', 'new', 'make', 'set up', 'setup'], ACCOUNT], createUser, { also: ['local', 'called', 'named', 'with', 'shell', 'in', 'home'] }),
  // "create bob with this key": an account is the only thing "create" makes with a key.
  rule('users.create-with-key', [['create', 'set up', 'setup'], ['with'], KEY_WORDS], createUser, { also: ['local', 'called', 'named', 'shell', 'in', 'home'] }),
  rule('users.delete', [['delete', 'remove', 'drop', 'deluser', 'userdel', 'get rid of'], ACCOUNT], (c, ctx) => {
    const removeHome = c.takeAny(['home', 'home directory', 'files', 'everything', 'and his home', 'their files']) !== null;
    const user = takeUser(c, ctx);
    if (user === null) return missing('which user to delete');
    if (!removeHome) ctx.assumed.push(`${user}'s home directory is kept (say "and their home" to delete it)`);
    return steps(step('DeleteUser', { user, removeHome }, `delete the account ${user}${removeHome ? ' and its home' : ''}`));
  }, { also: ['local', 'with', 'and', 'directory'] }),
  rule('users.lock', [['lock', 'disable', 'block', 'suspend', 'freeze'], ['user', 'users', 'account', 'accounts']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('which user to lock') : steps(step('LockUser', { user }, `lock the password of ${user}`));
  }, { also: ['password'] }),
  rule('users.lock-out', [['lock', 'shut'], ['out']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('which user to lock out') : steps(step('LockUser', { user }, `lock the password of ${user}`));
  }, { also: ['of', 'the'] }),
  rule('users.lock-password', [['lock'], ['password']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('which user to lock') : steps(step('LockUser', { user }, `lock the password of ${user}`));
  }),
  rule('users.unlock', [['unlock', 'unblock', 'reenable', 're-enable', 'unsuspend'], [...ACCOUNT, 'password']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('which user to unlock') : steps(step('UnlockUser', { user }, `unlock the password of ${user}`));
  }),
  rule('users.shell', [['shell', 'login shell'], ['set', 'change', 'switch', 'make', 'give', 'use']], (c, ctx) => {
    const shell = takeShell(c);
    const user = takeUser(c, ctx);
    if (user === null) return missing('which user');
    if (shell === null) return missing('a login shell from the fixed list (/bin/bash, /bin/sh, /usr/bin/bash, /usr/sbin/nologin, /bin/false)');
    return steps(step('SetUserShell', { user, shell }, `set the login shell of ${user} to ${shell}`));
  }, { also: ['to', 'of'] }),
  rule('users.expiry', [['expire', 'expires', 'expiry', 'expiration', 'valid until', 'until'], ACCOUNT], (c, ctx) => {
    const date = c.takeToken((t) => DATE.test(t.low)) ?? (c.take('never') ? 'never' : null);
    const user = takeUser(c, ctx);
    if (user === null) return missing('which user');
    if (date === null) return missing('the date (YYYY-MM-DD, or never)');
    return steps(step('SetAccountExpiry', { user, date }, `refuse logins of ${user} from ${date}`));
  }, { also: ['on', 'at', 'set', 'make', 'the', 'date'], unless: ['password'] }),
  rule('users.add-to-group', [['add', 'put', 'join', 'make'], ['to', 'in', 'into', 'member of', 'a member of'], ['group', 'groups']], (c, ctx) => addToGroup(c, ctx, takeGroup(c))),
  rule('users.add-to-it', [['add', 'put'], ['to it', 'in it', 'into it', 'to that group', 'in that group', 'into that group']], (c, ctx) => addToGroup(c, ctx, ctx.last.group ?? null)),
  rule('users.remove-from-group', [['remove', 'take', 'drop', 'kick', 'delete'], ['from', 'out of'], ['group', 'groups']], (c, ctx) => {
    const group = takeGroup(c);
    const user = takeUser(c, ctx);
    if (group === null || user === null) return missing('a user and a group');
    return steps(step('RemoveUserFromGroup', { user, group }, `remove ${user} from ${group}`));
  }),
  rule('users.create-group', [['create', 'add', 'new', 'make'], ['group']], (c, ctx) => {
    const group = takeGroup(c) ?? c.takeToken((t) => c.isName(t) && /^[a-z_][a-z0-9_-]{0,31}$/.test(t.low));
    return group === null ? missing('the group\'s name') : steps(step('CreateGroup', { group: remember(ctx, 'group', group.toLowerCase()) }, `create the group ${group}`));
  }, { also: ['called', 'named'] }),
  rule('users.delete-group', [['delete', 'remove', 'drop'], ['group']], (c) => {
    const group = takeGroup(c) ?? c.takeToken((t) => c.isName(t) && /^[a-z_][a-z0-9_-]{0,31}$/.test(t.low));
    return group === null ? missing('which group') : steps(step('DeleteGroup', { group: group.toLowerCase() }, `delete the group ${group}`));
  }, { also: ['called', 'named'] }),
  rule('users.password-aging', [['password', 'passwords'], ['expire', 'expires', 'expiry', 'aging', 'ageing', 'age', 'valid', 'change']], (c, ctx) => {
    const maxdays = takeNumberBefore(c, ['days', 'day']) ?? takeNumberAfter(c, ['every']);
    const warndays = takeNumberAfter(c, ['warn', 'warning']);
    const user = takeUser(c, ctx);
    if (user === null) return missing('which user (for the defaults of new accounts, say "for new accounts")');
    if (maxdays === null) return steps(step('ShowPasswordAging', { user }, `the password ageing of ${user}`));
    return steps(step('SetPasswordAging', { user, maxdays, ...(warndays !== null ? { warndays } : {}) }, `${user}'s password is valid ${maxdays} days`));
  }, { also: ['when', 'does', 'show', 'set', 'make', 'after', 'every', 'must', 'be', 'changed', 'days', 'max', 'maximum'], unless: ['new', 'default', 'defaults', 'force', 'next', 'policy', 'quality'] }),
  rule('users.force-password-change', [['force', 'require', 'must', 'make'], ['change', 'reset', 'new', 'choose'], ['password']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('which user') : steps(step('ForcePasswordChange', { user }, `${user} must choose a new password at the next login`));
  }, { also: ['next', 'login', 'at', 'their', 'his', 'her'] }),
  rule('users.comment', [['comment', 'full name', 'real name', 'gecos', 'display name', 'description']], (c, ctx) => {
    const comment = takeQuoted(c);
    const user = takeUser(c, ctx);
    if (user === null) return missing('which user');
    if (comment === null) return missing('the comment, between quotes');
    return steps(step('SetUserComment', { user, comment }, `set the comment of ${user}`));
  }, { also: ['set', 'change', 'to', 'of'] }),
  rule('users.sessions', [['logged in', 'logged on', 'sessions', 'who is on', 'w']], () => steps(step('ListSessions', {}, 'who is logged in now')), { also: ['who', 'is', 'list', 'show', 'currently', 'right', 'now'], unless: ['ssh'] }),
  rule('users.last-logins', [['last', 'recent', 'when'], ['login', 'logins', 'logged in', 'log in', 'logged on', 'lastlog']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return steps(step('LastLogins', user === null ? {} : { user }, user === null ? 'when each account last logged in' : `when ${user} last logged in`));
  }, { also: ['did', 'show', 'list'] }),
];
