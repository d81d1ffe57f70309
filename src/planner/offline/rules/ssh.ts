/** Rules of the ssh family: authorized keys, the SSH server's options and sessions. */
import { missing, rule, step, steps, takeUser, type Built, type Context } from '../rule.js';
import { takeNumber, takeSshKey, type Clause } from '../words.js';

const SSHD = ['ssh', 'sshd', 'ssh server', 'openssh'];

/** The SSH server options people ask about, by the words they use. */
const OPTION_WORDS: [string[], string][] = [
  [['password authentication', 'password login', 'password logins', 'passwords', 'password', 'passwordauthentication'], 'PasswordAuthentication'],
  [['root login', 'root logins', 'root', 'permitrootlogin'], 'PermitRootLogin'],
  [['x11 forwarding', 'x11', 'x11forwarding'], 'X11Forwarding'],
  [['agent forwarding', 'allowagentforwarding'], 'AllowAgentForwarding'],
  [['tcp forwarding', 'port forwarding', 'tunnels', 'tunnelling', 'allowtcpforwarding'], 'AllowTcpForwarding'],
  [['keyboard-interactive', 'kbdinteractiveauthentication', 'keyboard interactive'], 'KbdInteractiveAuthentication'],
  [['max auth tries', 'maxauthtries', 'auth tries', 'login attempts', 'attempts'], 'MaxAuthTries'],
  [['clientaliveinterval', 'keepalive', 'keep alive', 'idle timeout'], 'ClientAliveInterval'],
  [['logingracetime', 'grace time'], 'LoginGraceTime'],
  [['maxsessions', 'max sessions'], 'MaxSessions'],
];

function key(c: Clause, ctx: Context, action: 'AddAuthorizedKey' | 'RemoveAuthorizedKey'): Built {
  const k = takeSshKey(c);
  const user = takeUser(c, ctx);
  if (k === null) return missing('the public key itself, written whole (ssh-ed25519 AAAA... comment)');
  if (user === null) return missing('whose authorized_keys (a user name)');
  const kind = k.split(' ')[0];
  return steps(step(action, { user, key: k }, `${action === 'AddAuthorizedKey' ? 'let this ' + kind + ' key log in as' : 'stop this ' + kind + ' key logging in as'} ${user}`));
}

export const sshRules = [
  rule('ssh.list-keys', [['keys', 'authorized keys', 'authorized_keys', 'ssh keys', 'public keys']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('whose keys (a user name)') : steps(step('ListAuthorizedKeys', { user }, `the keys that can log in as ${user}`));
  }, { also: ['list', 'show', 'which', 'what', 'can', 'log in', 'login', 'ssh'], unless: ['add', 'remove', 'revoke', 'delete', 'host', 'fingerprint', 'fingerprints'] }),
  rule('ssh.add-key', [['add', 'authorize', 'authorise', 'install', 'append', 'allow', 'put']], (c, ctx) => key(c, ctx, 'AddAuthorizedKey'),
    { needs: (c) => c.tokens.some((t) => t.literal && /^(ssh-|ecdsa-|sk-)/.test(t.raw)), also: ['key', 'ssh key', 'public key', 'to', 'for', 'authorized keys', 'authorized_keys', 'ssh', 'login', 'log in', 'as'] }),
  rule('ssh.add-key-words', [['add', 'authorize', 'authorise', 'install', 'append'], ['key', 'ssh key', 'public key']], (c, ctx) => key(c, ctx, 'AddAuthorizedKey'), { also: ['to', 'for', 'authorized keys', 'ssh'] }),
  rule('ssh.remove-key', [['remove', 'revoke', 'delete', 'drop']], (c, ctx) => key(c, ctx, 'RemoveAuthorizedKey'),
    { needs: (c) => c.tokens.some((t) => t.literal && /^(ssh-|ecdsa-|sk-)/.test(t.raw)), also: ['key', 'ssh key', 'public key', 'from', 'for', 'authorized keys', 'authorized_keys', 'ssh'] }),
  rule('ssh.remove-key-words', [['remove', 'revoke', 'delete', 'drop'], ['key', 'ssh key', 'public key']], (c, ctx) => key(c, ctx, 'RemoveAuthorizedKey'), { also: ['from', 'for', 'authorized keys', 'ssh'] }),
  rule('ssh.host-keys', [['fingerprint', 'fingerprints', 'host key', 'host keys']], () => steps(step('HostKeyFingerprints', {}, "the SHA-256 fingerprints of this host's SSH keys")), { also: ['show', 'list', 'what', 'ssh', 'of', 'are'], unless: ['scan', 'keyscan'] }),
  rule('ssh.show-config', [SSHD, ['config', 'configuration', 'settings', 'options', 'sshd_config']], () => steps(step('ShowSshdConfig', {}, "the SSH server's effective configuration")),
    { also: ['show', 'print', 'what', 'effective', 'current'], unless: ['test', 'check', 'validate', 'verify', 'valid', 'disable', 'enable', 'set', 'allow', 'forbid', 'deny'] }),
  rule('ssh.test-config', [['test', 'check', 'validate', 'verify', 'valid', 'lint'], [...SSHD, 'sshd_config', 'sshd config']], () => steps(step('TestSshdConfig', {}, "check the SSH server's configuration with sshd -t")), { also: ['config', 'configuration', 'is', 'the', 'syntax'] }),
  rule('ssh.sessions', [SSHD, ['connected', 'connections', 'sessions', 'logged in', 'who']], () => steps(step('ListSshSessions', {}, 'the SSH connections open now')), { also: ['list', 'show', 'is', 'are', 'over', 'via', 'open'] }),
  rule('ssh.option', [SSHD, ['disable', 'enable', 'allow', 'forbid', 'deny', 'turn off', 'turn on', 'set', 'no', 'only', 'prohibit', 'limit', 'reset', "don't", 'dont', 'do not', 'never']], (c) => {
    const reset = c.said('reset') || c.said('default');
    let option: string | null = null;
    for (const [words, name] of OPTION_WORDS) if (c.takeAny(words) !== null) { option = name; break; }
    if (option === null) return missing('which SSH server option (password logins, root login, X11 forwarding, MaxAuthTries...)');
    if (reset) return steps(step('ResetSshdOption', { option }, `${option} back to the server's default`));
    const numeric = ['MaxAuthTries', 'ClientAliveInterval', 'LoginGraceTime', 'MaxSessions'].includes(option);
    if (numeric) {
      const n = takeNumber(c, 0, 3600);
      return n === null ? missing(`the value of ${option}`) : steps(step('SetSshdOption', { option, value: n }, `set ${option} to ${n}`));
    }
    let value: string;
    if (option === 'PermitRootLogin' && c.takeAny(['key', 'keys', 'key only', 'prohibit-password', 'without password', 'only with keys'])) value = 'prohibit-password';
    else if (c.saidAny(["don't", 'dont', 'do not', 'never', 'disable', 'forbid', 'deny', 'turn off', 'no', 'prohibit', 'only', 'refuse', 'block'])) value = 'no';
    else if (c.saidAny(['enable', 'allow', 'turn on', 'yes', 'permit'])) value = 'yes';
    else return missing(`whether ${option} should be on or off`);
    return steps(step('SetSshdOption', { option, value }, `set ${option} ${value}`));
  }, { needs: (c) => !c.tokens.some((t) => /^[0-9a-f:.]+(\/\d{1,3})?$/i.test(t.low) && /[.:]/.test(t.low)), also: ['login', 'logins', 'log in', 'over', 'for', 'via', 'on', 'to', 'keys', 'key-only', 'authentication', 'server', 'let'] }),
];
