/**
 * Journal files (family 'logging'): the space they take, the boots they hold, their
 * integrity, and the archived ones vacuumed (the active files are never deleted).
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { listDirectory } from '../../lib/host-files.js';
import { bytes, timeSpan } from './quantities.js';
import { noRollback } from '../../rollback.js';

export const journalDiskUsage = fixedRead({
  name: 'JournalDiskUsage',
  sensitive: false,
  reachesNetwork: false,
  family: 'logging',
  description: 'Show how much disk space the archived and active journal files take.',
  summary: 'Show the disk space the journal takes',
  steps: [command('journalctl', ['--disk-usage'])],
});

const JOURNAL_ROOTS = ['/var/log/journal', '/run/log/journal'];
const JOURNAL_FILE = /^[A-Za-z0-9@._:-]+\.journal~?$/;

export interface JournalFile {
  path: string;
  size: number;
  /** Archived (system@….journal, or a damaged …journal~): what vacuum may delete; the active files never are. */
  archived: boolean;
}

/** The journal files of this machine, persistent and volatile. */
export async function readJournalFiles(host: Host): Promise<{ directories: string[]; files: JournalFile[]; usage: string }> {
  const machineId = ((await host.readFile('/etc/machine-id')) ?? '').trim();
  const directories: string[] = [];
  const files: JournalFile[] = [];
  if (/^[0-9a-f]{32}$/.test(machineId)) {
    for (const root of JOURNAL_ROOTS) {
      const dir = `${root}/${machineId}`;
      const names = await listDirectory(host, dir);
      if (names === null) continue;
      directories.push(dir);
      for (const name of names.filter((n) => JOURNAL_FILE.test(n)).sort()) {
        const st = await host.stat(`${dir}/${name}`);
        if (st?.isFile) files.push({ path: `${dir}/${name}`, size: st.size, archived: name.includes('@') || name.endsWith('~') });
      }
    }
  }
  const du = await host.run('journalctl', ['--disk-usage']);
  return { directories, files, usage: du.code === 0 ? (du.stdout + du.stderr).trim() : '' };
}

const vacuumSize = token(/^[1-9][0-9]{0,5}[KMG]$/, 'size (a number followed by K, M or G, e.g. 100M)', 7);

export const vacuumJournal = action({
  name: 'VacuumJournal',
  family: 'logging',
  description: 'Delete archived journal files, oldest first, down to a total size (maxSize) or older than an age (maxAge); the active files are kept.',
  risk: 'high',
  readOnly: false,
  rollback: noRollback('the archived journal files are deleted, and the log entries they hold with them; Airlock keeps no copy, so they cannot be brought back'),
  runsPrograms: false,
  params: params({ maxSize: vacuumSize.optional(), maxAge: timeSpan.optional() }).refine((p) => (p.maxSize === undefined) !== (p.maxAge === undefined), 'give exactly one of maxSize and maxAge'),
  files: [],
  example: { maxSize: '500M' },
  current: (_p, host) => readJournalFiles(host),
  shown: (cur) => ({ usage: cur.usage, directories: cur.directories, archived_files: cur.files.filter((f) => f.archived).length }),
  check: (_p, cur) => {
    if (!cur.files.some((f) => f.archived)) {
      throw new AirlockError('conflict', 'nothing_to_vacuum', `there are no archived journal files in ${cur.directories.join(' or ') || '/var/log/journal or /run/log/journal'}; vacuuming never deletes the active ones`, 'journald archives a file when it reaches its size limit or on `journalctl --rotate`');
    }
  },
  preview: ({ maxSize, maxAge }, cur) => {
    const archived = cur.files.filter((f) => f.archived);
    return {
      summary: maxSize ? `Delete the oldest archived journal files until the journal takes at most ${maxSize}` : `Delete archived journal files older than ${maxAge}`,
      change: {
        rule: maxSize
          ? `deletes archived journal files, oldest first, until the files of each journal directory take at most ${maxSize} (the active files count but are kept)`
          : `deletes the archived journal files whose entries are all older than ${maxAge}`,
        directories: cur.directories,
        may_delete: archived.map((f) => f.path),
      },
      sideEffects: [
        `now: ${cur.usage || 'usage unknown'}; ${archived.length} archived file(s) take ${bytes(archived.reduce((n, f) => n + f.size, 0))}`,
        'the deleted log entries are gone for good: there is no undo',
      ],
      warnings: ['investigations and audits lose the history these files hold'],
    };
  },
  mechanism: ({ maxSize, maxAge }) => [command('journalctl', [maxSize ? `--vacuum-size=${maxSize}` : `--vacuum-time=${maxAge}`])],
});

export const listBoots = fixedRead({
  name: 'ListBoots',
  sensitive: false,
  reachesNetwork: false,
  family: 'logging',
  description: 'List the boots the journal holds entries for: index (0 is the running boot, -1 the one before), boot id, and the times of the first and last entry (microseconds since the epoch), as JSON.',
  summary: 'List the boots recorded in the journal (journalctl --list-boots)',
  steps: [command('journalctl', ['--list-boots', '--no-pager', '-o', 'json'])],
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
