/**
 * Diagnostics: the reads an administrator reaches for when something is wrong (neighbours,
 * counters, routing rules, connections, an SSH server's reachability, boots, kernel messages,
 * journal integrity, a user's processes, limits, file metadata, a search in a configuration
 * file, boot parameters, resource pressure). Each action keeps its real family; the state
 * readers and validators are the ones those families use.
 *
 * Not offered, because the test bed cannot execute them for real: loading a kernel module
 * and describing one with modinfo (its kernel has no loadable module support, no
 * /lib/modules and no /sys/module), and a generic TCP port check (no program in the
 * test bed connects to a port without a shell around it: see ScanSshHostKeys).
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, nothingToRead, type Host } from '../action.js';
import { command, fileScan } from '../mechanism.js';
import { entryIn } from '../lib/trusted-path.js';
import { params, pathMatching, token, userName } from '../params.js';
import { CONFIG_DIRS, CONFIG_FILES, pathState, readConfigFile, refuseLink } from './files.js';
import { journalQueryLines, MAX_QUERY_LINES, PRIORITIES } from './logging.js';
import { describeProcess, readProcess, refuseMissingProcess } from './processes.js';
import { fixedRead } from '../lib/fixed-read.js';
import { requireUser } from '../lib/accounts.js';

// ---------------------------------------------------------------- logging

export const listBoots = fixedRead({
  name: 'ListBoots',
  sensitive: false,
  reachesNetwork: false,
  family: 'logging',
  description: 'List the boots the journal holds entries for: index (0 is the running boot, -1 the one before), boot id, and the times of the first and last entry (microseconds since the epoch), as JSON.',
  summary: 'List the boots recorded in the journal (journalctl --list-boots)',
  steps: [command('journalctl', ['--list-boots', '--no-pager', '-o', 'json'])],
});

export const kernelMessages = action({
  name: 'KernelMessages',
  family: 'logging',
  description: `Read the last kernel messages (1 to ${MAX_QUERY_LINES}) of the running boot from the journal, optionally at a priority or more severe, with ISO timestamps (journalctl --dmesg).`,
  // Medium: Debian sets kernel.dmesg_restrict=1, so only root reads the kernel log. It holds
  // device serial numbers, kernel addresses and the packets a firewall logs (who connected from where).
  risk: 'medium',
  readOnly: true,
  // Sensitive: kernel log lines.
  sensitive: true,
  reachesNetwork: false,
  params: params({ lines: journalQueryLines, priority: z.enum(PRIORITIES).optional() }),
  files: [],
  example: { lines: 200, priority: 'warning' as const },
  current: nothingToRead,
  preview: ({ lines, priority }) => ({
    summary: `Read the last ${lines} kernel messages of this boot${priority ? ` at priority ${priority} or more severe` : ''}`,
    change: null,
  }),
  mechanism: ({ lines, priority }) => [command('journalctl', ['--dmesg', '--no-pager', '-o', 'short-iso', '-n', String(lines), ...(priority ? ['-p', priority] : [])])],
});

export const showJournaldConfig = fixedRead({
  name: 'ShowJournaldConfig',
  // Sensitive: journald's configuration files, in full.
  sensitive: true,
  reachesNetwork: false,
  family: 'logging',
  description: 'Show the journald configuration as journald reads it: /etc/systemd/journald.conf (or the vendor copy) and every drop-in, in order, each under a "# /path" header.',
  summary: 'Show journald.conf and its drop-ins (systemd-analyze cat-config)',
  steps: [command('systemd-analyze', ['cat-config', '--no-pager', 'systemd/journald.conf'])],
});

export const verifyJournal = fixedRead({
  name: 'VerifyJournal',
  sensitive: false,
  reachesNetwork: false,
  family: 'logging',
  description: 'Check every journal file for damage (journalctl --verify). The job succeeds when every file passes; a damaged file fails it, and the error names that file.',
  summary: 'Check the journal files for damage (journalctl --verify)',
  // --quiet drops the PASS lines, so the last line of stderr (what a failure quotes) is a FAIL line.
  // A large journal takes minutes to check.
  steps: [command('journalctl', ['--verify', '--quiet', '--no-pager'], { timeoutMs: 600_000 })],
});

// ---------------------------------------------------------------- processes

/** Any process id, init included: these are reads (the kernel's PID_MAX_LIMIT is 4194304). */
const anyProcessId = z.number().int().min(1).max(4_194_304).describe('a process id (1 to 4194304)');

const PS_TREE_COLUMNS = 'pid,ppid,user,stat,comm';
const PS_USER_COLUMNS = 'pid,ppid,stat,lstart,pcpu,pmem,rss,unit,comm';

export const processTree = fixedRead({
  name: 'ProcessTree',
  sensitive: false,
  reachesNetwork: false,
  family: 'processes',
  description: 'Show every process as a tree (children indented under their parent): pid, parent, user, state and program name (never the command line, which may hold secrets).',
  summary: 'Show the process tree (ps --forest)',
  steps: [command('ps', ['-e', '--forest', '-o', PS_TREE_COLUMNS])],
});

export const processesOfUser = action({
  name: 'ProcessesOfUser',
  family: 'processes',
  description: 'List the processes running as one user (effective user id): pid, parent, state, start time, CPU and memory use, systemd unit and program name (never the command line).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ user: userName }),
  files: [],
  example: { user: 'www-data' },
  current: ({ user }, host) => requireUser(host, user),
  shown: (u) => ({ user: u.name, uid: u.uid }),
  preview: ({ user }, u) => ({ summary: `List the processes of ${user} (uid ${u.uid})`, change: null }),
  // ps takes no `--`: the uid, a number, is the argument of --user. Exit 1: the user runs nothing now.
  mechanism: (_p, u) => [command('ps', ['-o', PS_USER_COLUMNS, '--user', String(u.uid)], { okCodes: [0, 1] })],
});

export const processLimits = action({
  name: 'ProcessLimits',
  family: 'processes',
  description: 'Show the resource limits of one process, soft and hard (/proc/PID/limits: open files, processes, locked memory, core size, ...).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ pid: anyProcessId }),
  files: ['/proc/*/limits'],
  example: { pid: 1234 },
  current: ({ pid }, host) => readProcess(host, pid),
  check: ({ pid }, cur) => refuseMissingProcess(pid, cur),
  preview: (_p, cur) => ({ summary: `Read the resource limits of ${describeProcess(cur)}`, change: null }),
  mechanism: ({ pid }) => [fileScan(`/proc/${pid}/limits`)],
});

// ---------------------------------------------------------------- files

/** What FileInfo may describe: the configuration files ReadConfigFile reads and the directories ListConfigDirectory lists. */
const DESCRIBABLE = [...CONFIG_FILES, ...CONFIG_DIRS];

const kindOf = (st: NonNullable<Awaited<ReturnType<Host['stat']>>>) => (st.isSymlink ? 'symbolic link' : st.isDir ? 'directory' : st.isFile ? `file, ${st.size} bytes` : 'special file');

export const fileInfo = action({
  name: 'FileInfo',
  family: 'files',
  description: 'Show the metadata of one allowlisted configuration file or directory with stat: type, size, mode, owner, group, inode, links and times. A symbolic link is described, not followed.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ path: pathMatching(DESCRIBABLE, 'path') }),
  // stat reads no content.
  files: [],
  example: { path: '/etc/ssh/sshd_config' },
  current: async ({ path }, host) => {
    await host.trustedPath(entryIn(path));
    const s = await pathState(path, host);
    // stat does not follow the final component: only a link on the way to it could lead out of the allowlist.
    return s.link === path ? { link: null, stat: await host.stat(path) } : s;
  },
  check: ({ path }, cur) => {
    refuseLink(path, cur);
    if (!cur.stat) throw new AirlockError('validation', 'no_such_file', `${path} does not exist on this host`);
  },
  preview: ({ path }, cur) => ({ summary: `Show the metadata of ${path} (${cur.stat ? kindOf(cur.stat) : 'absent'})`, change: null }),
  // stat describes a link rather than follow it: only the directories on the way matter.
  mechanism: ({ path }) => [command('stat', ['--', path], { paths: [entryIn(path)] })],
});

const SEARCH_WORD = '[A-Za-z0-9_.,:=@%+*/#()\\[\\]-]+';
/** Plain text to look for (grep --fixed-strings): words of safe characters, one space between words; never '..' or a shell metacharacter. */
export const searchText = token(new RegExp(`^${SEARCH_WORD}( ${SEARCH_WORD})*$`), 'search text (letters, digits, _ . , : = @ % + * / # ( ) [ ] - and single spaces between words)', 128).refine(
  (s) => !s.includes('..'),
  "search text must not contain '..'",
);

export const searchConfigFile = action({
  name: 'SearchConfigFile',
  family: 'files',
  description: 'Show, with their line numbers, the lines of one allowlisted configuration file (the files ReadConfigFile reads) that contain a text; the text is plain text, not a pattern.',
  risk: 'low',
  readOnly: true,
  // Sensitive: lines of a configuration file.
  sensitive: true,
  reachesNetwork: false,
  params: params({ path: pathMatching(CONFIG_FILES, 'path'), text: searchText, ignoreCase: z.boolean().optional() }),
  files: CONFIG_FILES,
  example: { path: '/etc/ssh/sshd_config', text: 'PermitRootLogin' },
  // It shows part of what ReadConfigFile shows, so the same file passes the same checks (no link, world-readable).
  current: async ({ path }, host) => {
    await host.trustedPath(path); // grep opens it by name
    return readConfigFile.current({ path }, host);
  },
  check: ({ path }, cur) => readConfigFile.check?.({ path }, cur),
  preview: ({ path, text, ignoreCase }) => ({ summary: `Show the lines of ${path} containing "${text}"${ignoreCase ? ' in any case' : ''}`, change: null }),
  // Exit 1: no line matches; an answer, not a failure.
  mechanism: ({ path, text, ignoreCase }) => [command('grep', ['--fixed-strings', '--line-number', ...(ignoreCase ? ['--ignore-case'] : []), '--', text, path], { okCodes: [0, 1], paths: [path] })],
});
