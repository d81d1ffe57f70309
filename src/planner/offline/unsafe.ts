/**
 * Requests the offline planner refuses outright, before any rule reads them: a shell or a
 * command line (Airlock has none to give), mass destruction ("delete every user"), the root
 * account, unrestricted root through sudo or a protected group, and asks for secrets. Each
 * test is a few words that must appear together, checked on the lower-cased words.
 */
import type { Token } from './words.js';

interface Refusal {
  /** Every group must have a word in the intent. */
  all: readonly (readonly string[])[];
  /** None of these may appear (they make the words an ordinary request). */
  unless?: readonly string[];
  reason: string;
}

const SHELL =
  'Airlock gives no shell and runs no command line: it runs only typed catalogue actions, each previewed and approved. Ask for the change itself (e.g. "restart nginx"), and see `airlock actions` for what exists.';

const REFUSALS: readonly Refusal[] = [
  { all: [['give', 'open', 'spawn', 'get', 'start', 'launch', 'drop', 'want', 'need'], ['shell', 'bash', 'terminal', 'console', 'tty', 'prompt', 'zsh']], unless: ['login', 'user', "user's", 'account', 'set', 'change'], reason: SHELL },
  { all: [['run', 'execute', 'exec', 'eval', 'type'], ['command', 'commands', 'script', 'bash', 'sh', 'shell', 'this', 'code', 'curl', 'wget', 'rm', 'oneliner', 'one-liner']], reason: SHELL },
  { all: [['sh', 'rm', 'chmod', 'chown', 'dd', 'mkfs', 'su']], unless: ['install', 'package', 'shell', 'remove', 'purge'], reason: SHELL },
  { all: [['delete', 'remove', 'drop', 'wipe', 'purge', 'kill', 'lock', 'disable', 'destroy'], ['every', 'all', 'each'], ['user', 'users', 'account', 'accounts', 'group', 'groups', 'process', 'processes', 'package', 'packages', 'file', 'files', 'container', 'containers', 'service', 'services', 'rule', 'rules', 'key', 'keys']],
    unless: ['unused', 'old', 'older', 'orphaned', 'unneeded', 'journal', 'logs'],
    reason: 'A request to delete or disable everything of a kind is refused: name each one (e.g. "delete the user bob"), so a person approves each change knowingly.' },
  { all: [['wipe', 'format', 'erase', 'shred', 'destroy', 'nuke', 'rm'], ['disk', 'disks', 'drive', 'partition', 'everything', '/', 'filesystem', 'system', 'server', 'host', 'data', '-rf']], reason: 'Wiping or formatting disks is not something Airlock does: no catalogue action erases a device or a file system.' },
  { all: [['delete', 'remove', 'lock', 'disable', 'expire', 'kill'], ['root']], unless: ['login', 'ssh', 'sshd', 'password', 'logins'], reason: 'The root account is not deleted, locked or expired through Airlock: that could lock every person out of the host. To refuse root logins over SSH, ask "disable root login over ssh".' },
  { all: [['give', 'grant', 'make', 'add', 'let'], ['root', 'sudo', 'admin', 'administrator', 'wheel', 'superuser', 'sudoers']], unless: ['run', 'restart', 'reload', 'start', 'stop', 'command', 'revoke', 'remove', 'delete', "don't", 'dont', 'not', 'program', 'who', 'list', 'show', 'can', 'what', 'login', 'ssh', 'key', 'keys', '/usr/bin', '/usr/sbin', '/bin', '/sbin'],
    reason: 'Unrestricted root (full sudo, the sudo, wheel or admin group) is not granted through Airlock. A sudo grant names one program and its exact arguments: e.g. "let deploy run /usr/bin/systemctl restart nginx.service with sudo".' },
  { all: [['show', 'print', 'read', 'tell', 'give', 'send', 'dump', 'cat', 'reveal', 'what', 'get', 'copy'], ['password', 'passwords', 'shadow', '/etc/shadow', 'private', 'secret', 'secrets', 'token', 'tokens', 'credentials', 'api key', 'api keys']],
    unless: ['policy', 'quality', 'aging', 'ageing', 'expire', 'expiry', 'expires', 'expiration', 'change', 'length', 'login', 'authentication', 'logins', 'defaults', 'minimum', 'maximum'],
    reason: 'Secrets (passwords, private keys, tokens, /etc/shadow) are never read out through Airlock: the daemon masks them in every output.' },
  { all: [['disable', 'stop', 'turn', 'remove', 'uninstall', 'kill', 'bypass', 'delete', 'clear', 'erase', 'truncate'], ['airlock', 'audit log', 'audit trail', 'signed log', 'airlockd']], reason: 'Airlock does not switch off, bypass or erase itself or its signed log through its own catalogue.' },
  { all: [['chmod', 'permissions', 'writable'], ['777', 'world-writable', 'everyone', 'anyone']], unless: ['show', 'what', 'check', 'list'], reason: 'Making files writable by everyone is refused: no catalogue action changes file modes that way.' },
];

/** Shell syntax: a command line, not an intent. */
const SHELL_SYNTAX = /(\|\s*(ba|z|da)?sh\b|&&|\|\||`|\$\(|;\s*(rm|curl|wget|bash|sh)\b|>>?\s*\/)/;

/** The reason to refuse the whole intent, or null when nothing in it is unsafe. */
export function unsafeReason(intent: string, tokens: readonly Token[]): string | null {
  if (SHELL_SYNTAX.test(intent)) return SHELL;
  const words = new Set<string>();
  for (const t of tokens) {
    if (t.literal && /^(ssh-|ecdsa-|sk-)/.test(t.raw)) continue; // a public key's base64 is not words
    words.add(t.low);
    for (const part of t.low.split(/[-_]/)) words.add(part);
  }
  const text = tokens.filter((t) => !t.literal).map((t) => t.low).join(' ');
  const present = (w: string) => (w.includes(' ') ? text.includes(w) : words.has(w));
  for (const r of REFUSALS) {
    if (r.unless?.some(present)) continue;
    if (r.all.every((group) => group.some(present))) return r.reason;
  }
  return null;
}
