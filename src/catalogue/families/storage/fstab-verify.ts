/**
 * `findmnt --verify` of /etc/fstab, as the storage actions use it before and after a
 * change. findmnt exits 0 when it found only warnings (a non-canonical target, that is a
 * mount point reached through a link, among them), so a check passes only when findmnt
 * also prints its success line, or when its only warnings are on an allowlist of exact
 * lines known to be harmless; anything else fails, with what findmnt said.
 *
 * The allowlist has one entry kind: findmnt 2.38 warns "non-bind mount source PATH is a
 * directory or regular file" for every swap file, so that line is tolerated for each
 * swap entry of the file checked whose source is a path.
 *
 * Where systemd runs, findmnt also warns while systemd still uses an older /etc/fstab, so
 * a change reloads systemd before the check (fstabChange).
 */
import type { Host } from '../../action.js';
import { command, verdictProblems, type CommandStep, type FileWriteStep, type Step, type Verdict } from '../../mechanism.js';

export const FSTAB = '/etc/fstab';
/** What findmnt --verify prints (LC_ALL=C.UTF-8) when it found neither errors nor warnings. */
export const VERIFY_SUCCESS = 'Success, no errors or warnings detected';
const VERIFY_ARGS = ['--verify', '--tab-file', FSTAB];

/** The warnings tolerated for an fstab text: one per swap file it names (see above). */
export function toleratedWarnings(fstab: string): string[] {
  return fstab.split('\n').flatMap((line) => {
    const [source, , fstype] = line.trim().split(/\s+/);
    return source?.startsWith('/') && fstype === 'swap' ? [`[W] non-bind mount source ${source} is a directory or regular file`] : [];
  });
}

const verdictFor = (fstab: string): Verdict => {
  const tolerated = toleratedWarnings(fstab);
  return { success: VERIFY_SUCCESS, ...(tolerated.length ? { tolerated } : {}) };
};

/** The mechanism step, for the fstab text the job writes: fails on an error or a warning not tolerated. `paths`: the mount points it judges by name. */
export const verifyFstabStep = (fstab: string, paths: string[] = []): CommandStep =>
  command('findmnt', VERIFY_ARGS, { verdict: verdictFor(fstab), ...(paths.length ? { paths } : {}) });

/** The check as a read of the fstab as it is (`fstab`, its text): ok under the same verdict; `report` is what findmnt said, for a refusal. */
export async function verifyFstab(host: Host, fstab: string): Promise<{ ok: boolean; report: string }> {
  const r = await host.run('findmnt', VERIFY_ARGS);
  return { ok: r.code === 0 && verdictProblems(verdictFor(fstab), r.stdout) === null, report: `${r.stdout}${r.stderr}`.trim() };
}

/** The first lines of a report, on one line, for an error message. */
export const reportLine = (report: string) =>
  report
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 6)
    .join(' | ');

/** Whether systemd is the running init (what sd_booted() tests): then it reads /etc/fstab too. */
export async function systemdRuns(host: Host): Promise<boolean> {
  return (await host.stat('/run/systemd/system'))?.isDir === true;
}

const daemonReload = () => command('systemctl', ['daemon-reload']);

/**
 * Writing /etc/fstab, and with systemd making it read the new file: reload it, write, reload
 * again. The first reload is there for its undo: undos run in reverse, so a rollback (or a
 * revert) restores the file first and then reloads systemd onto the restored file; the second
 * reload is undone by that one.
 */
export function fstabWrite(write: FileWriteStep, systemd: boolean): Step[] {
  return systemd ? [{ ...daemonReload(), undo: daemonReload() }, write, { ...daemonReload(), noUndo: 'undone_earlier' }] : [write];
}

/** fstabWrite, then the check (a read: it changes nothing); a failing check rolls the write back. */
export function fstabChange(write: FileWriteStep, paths: string[], systemd: boolean): Step[] {
  return [...fstabWrite(write, systemd), { ...verifyFstabStep(write.content, paths), noUndo: 'changes_nothing' }];
}
