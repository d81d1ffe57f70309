/** Rules of the files family: reading, listing, describing and searching allowlisted configuration files. */
import { missing, rule, step, steps } from '../rule.js';
import { takePath, takeQuoted, type Clause } from '../words.js';

const DIRECTORIES = ['/etc/sysctl.d', '/etc/apt/sources.list.d', '/etc/ssh/sshd_config.d', '/etc/systemd/system', '/etc/cron.d', '/etc/logrotate.d', '/etc/sudoers.d'];

/** The text to look for: quoted, or the word after "for"/"find"/"grep". */
function searchText(c: Clause): string | null {
  return takeQuoted(c) ?? c.after(['for', 'find', 'grep', 'containing', 'contains', 'mention', 'mentions'], (t) => !t.literal && /^[A-Za-z0-9_.,:=@%+*#()\[\]-]+$/.test(t.raw) && !t.raw.startsWith('/'));
}

const hasEtcPath = (c: Clause) => c.tokens.some((t) => !t.literal && /^\/(etc|usr\/lib\/systemd|lib\/systemd)\//.test(t.raw));

export const filesRules = [
  rule('files.search', [['search', 'grep', 'find', 'look for', 'containing', 'contains', 'mention', 'mentions', 'which lines']], (c) => {
    const path = takePath(c, ['/etc', '/usr/lib/systemd', '/lib/systemd']);
    const text = searchText(c);
    if (path === null) return missing('which configuration file to search');
    if (text === null) return missing(`what to look for in ${path}`);
    const ignoreCase = c.takeAny(['ignoring case', 'case-insensitive', 'case insensitive', 'any case']) !== null;
    return steps(step('SearchConfigFile', { path, text, ...(ignoreCase ? { ignoreCase } : {}) }, `the lines of ${path} that contain ${text}`));
  }, { needs: hasEtcPath, also: ['in', 'inside', 'the', 'file', 'lines', 'where', 'is', 'set', 'show', 'line'] }),
  rule('files.info', [['permissions', 'owner', 'owns', 'owned', 'mode', 'stat', 'metadata', 'modified', 'size', 'perms', 'ownership', 'when was']], (c) => {
    const path = takePath(c, ['/etc', '/usr', '/var', '/lib', '/opt', '/srv', '/home', '/root', '/boot']);
    return path === null ? missing('which file') : steps(step('FileInfo', { path }, `the metadata of ${path}`));
  }, { needs: (c) => c.tokens.some((t) => /^\/(etc|usr|lib|boot)\//.test(t.raw)), also: ['show', 'what', 'are', 'the', 'of', 'who', 'owns', 'is', 'last', 'changed', 'file', 'by'] }),
  rule('files.list-dir', [['list', 'ls', 'what is in', "what's in", 'contents of', 'files in', 'show']], (c) => {
    const path = c.takeToken((t) => DIRECTORIES.includes(t.raw.replace(/\/$/, '')));
    return path === null ? missing('which configuration directory') : steps(step('ListConfigDirectory', { path: path.replace(/\/$/, '') }, `the entries of ${path}`));
  }, { needs: (c) => c.tokens.some((t) => DIRECTORIES.includes(t.raw.replace(/\/$/, ''))), also: ['the', 'directory', 'folder', 'files', 'entries', 'in', 'of'] }),
  rule('files.read', [['show', 'read', 'cat', 'print', 'view', 'display', 'open', 'look at', 'contents', 'content', "what's in", 'what is in']], (c) => {
    const path = takePath(c, ['/etc', '/usr/lib/systemd', '/lib/systemd']);
    return path === null ? missing('which configuration file') : steps(step('ReadConfigFile', { path }, `the content of ${path}`));
  }, { needs: hasEtcPath, also: ['the', 'file', 'me', 'of', 'config', 'configuration'] }),
];
