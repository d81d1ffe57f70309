/**
 * `airlock uninstall [--purge]` (root). Without --purge: the service, unit, tmpfiles entry,
 * completions and man page go; the audit trail stays. With --purge it first lists exactly
 * what it will delete (keys, the signed log's database, checkpoints, groups) and asks at a
 * terminal, or needs --yes. It always says what it leaves (the policy, the checkout, the
 * link) and the commands that remove those.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { DEFAULT_CONFIG_DIR, DEFAULT_LOG_DIR, DEFAULT_RUNTIME_DIR, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';
import { AirlockError } from '../protocol/errors.js';
import { AIRLOCK_GROUPS } from '../protocol/risk.js';
import { COMPLETION_PATHS } from './completion.js';
import { DROP_IN_PATH } from './sudo-cache.js';
import { CHECKOUT, groupExists, LINK_PATH, PACKAGED, requireRoot, run, systemdRunning, TMPFILES_PATH, UNIT_PATH } from './installation.js';
import { MAN_PATH } from './man.js';
import { CONSOLE_UNIT_PATH } from './console-unit.js';
import { c, EXIT, printJson, reportError } from './ui.js';

const CHATTR = '/usr/bin/chattr';
const FILES = stateFiles(DEFAULT_STATE_DIR, DEFAULT_LOG_DIR);
/**
 * What --purge removes besides the files install wrote: the append-only checkpoint file's
 * attribute cleared first, then these directories and groups. The Debian package's
 * `apt purge` removes the same, from these names (scripts/deb-scripts.ts).
 */
export const PURGED = {
  appendOnly: FILES.checkpoints,
  dirs: [DEFAULT_STATE_DIR, DEFAULT_LOG_DIR, DEFAULT_RUNTIME_DIR],
  groups: AIRLOCK_GROUPS,
} as const;
/** What each file of the state and log directories is, for the list a person confirms. */
const KNOWN: Record<string, string> = {
  [FILES.db]: 'the store: transactions and the signed audit log',
  [`${FILES.db}-wal`]: "the store's write-ahead log (recent entries)",
  [`${FILES.db}-shm`]: "the store's shared-memory index",
  [FILES.auditKey]: 'the audit signing key',
  [FILES.approvalKey]: 'the approval (receipt) signing key',
  [FILES.totpKey]: "the key sealing approvers' second factors",
  [FILES.maskKey]: 'the pseudonym key',
  [FILES.rowKey]: "the key of this host's row MACs in a PostgreSQL store",
  [FILES.publicKey]: 'the public audit key',
  [`${DEFAULT_STATE_DIR}/audit-keys.pub`]: 'every public audit key the log has had (rotation)',
  [`${DEFAULT_STATE_DIR}/approval-keys.pub`]: 'every public approval key (rotation)',
  [`${DEFAULT_STATE_DIR}/log-id`]: "the log's id (its first audit key's id)",
  [FILES.checkpoints]: 'the signed checkpoints (append-only)',
};

/** Everything --purge deletes, each with what it is. */
function purgeList(): Array<{ what: string; path: string }> {
  const list: Array<{ what: string; path: string }> = [];
  for (const dir of [DEFAULT_STATE_DIR, DEFAULT_LOG_DIR]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      list.push({ path, what: KNOWN[path] ?? (lstatSync(path).isDirectory() ? 'a directory' : 'a file') });
    }
    list.push({ path: dir, what: 'the directory' });
  }
  if (existsSync(DEFAULT_RUNTIME_DIR)) list.push({ path: DEFAULT_RUNTIME_DIR, what: "the socket's directory" });
  for (const g of PURGED.groups) if (groupExists(g)) list.push({ path: `group ${g}`, what: 'its members lose their Airlock role' });
  return list;
}

/** What uninstall leaves, each with the command that removes it. */
function leftBehind(purge: boolean): Array<{ path: string; what: string; remove: string }> {
  const kept: Array<{ path: string; what: string; remove: string }> = [];
  if (!purge) for (const d of [DEFAULT_STATE_DIR, DEFAULT_LOG_DIR]) if (existsSync(d)) kept.push({ path: d, what: 'the audit trail', remove: 'sudo airlock uninstall --purge' });
  if (existsSync(DEFAULT_CONFIG_DIR)) kept.push({ path: DEFAULT_CONFIG_DIR, what: 'the policy and tokens', remove: `sudo rm -r ${DEFAULT_CONFIG_DIR}` });
  let link: string | null = null;
  try {
    link = lstatSync(LINK_PATH).isSymbolicLink() ? readlinkSync(LINK_PATH) : null;
  } catch {}
  if (link !== null) kept.push({ path: LINK_PATH, what: `the link to ${link}`, remove: `sudo rm ${LINK_PATH}` });
  // It protects the account whether or not Airlock is installed: left for the person to decide.
  if (existsSync(DROP_IN_PATH)) kept.push({ path: DROP_IN_PATH, what: "sudo's password cache off, from install --sudo-no-cache", remove: `sudo rm ${DROP_IN_PATH}` });
  kept.push({ path: CHECKOUT, what: 'this checkout', remove: `sudo rm -r ${CHECKOUT}` });
  return kept;
}

async function confirmed(list: Array<{ what: string; path: string }>): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const a = await rl.question(`Delete these ${list.length} items? The audit trail cannot be recovered. [y/N] `);
    return /^y(es)?$/i.test(a.trim());
  } finally {
    rl.close();
  }
}

/**
 * The checkpoint file is append-only (chattr +a): not even root unlinks it until the
 * attribute is cleared. Cleared first, before anything is removed, so a failure leaves
 * everything as it was.
 */
function releaseCheckpoints(): string | null {
  if (!existsSync(PURGED.appendOnly)) return null;
  try {
    run(CHATTR, ['-a', '--', PURGED.appendOnly]);
    return `cleared the append-only attribute of ${PURGED.appendOnly}`;
  } catch (e) {
    const attrs = (() => {
      try {
        return run('/usr/bin/lsattr', ['--', FILES.checkpoints]).split(' ')[0] ?? '';
      } catch {
        return '';
      }
    })();
    // A file system without attributes has none to clear; one that has the attribute blocks the removal.
    if (!attrs.includes('a')) return null;
    throw new AirlockError('execution', 'append_only', `${FILES.checkpoints} is append-only and ${CHATTR} -a failed: ${(e as Error).message.split('\n')[0]}`, `clear it by hand (\`sudo ${CHATTR} -a ${FILES.checkpoints}\`), then run \`sudo airlock uninstall --purge\` again; nothing was removed`);
  }
}

export async function uninstall(o: { purge?: boolean; yes?: boolean; json?: boolean }): Promise<number> {
  if (PACKAGED) {
    // dpkg owns the files install would remove: removing them here would leave the package broken.
    throw new AirlockError('validation', 'installed_by_package', `Airlock was installed by the Debian package airlock (${CHECKOUT}): dpkg removes it`, '`sudo apt remove airlock` (keeps the audit trail and keys) or `sudo apt purge airlock` (also removes /var/lib/airlock, /var/log/airlock and the Airlock groups, as `airlock uninstall --purge` does)');
  }
  requireRoot('uninstall');
  const list = o.purge ? purgeList() : [];
  if (o.purge) {
    if (!o.json) process.stderr.write(`airlock uninstall --purge deletes:\n${list.map((x) => `  ${x.path}  (${x.what})\n`).join('')}`);
    if (!o.yes) {
      const atTerminal = process.stdin.isTTY && !o.json;
      // Not confirmed is a usage error (exit 2, docs/cli.md): the command line lacked --yes.
      if (!atTerminal) {
        reportError(new AirlockError('authorization', 'not_confirmed', 'uninstall --purge deletes the keys and the signed audit log, and there is no terminal to ask: nothing was removed', 'add --yes to delete them without asking'), Boolean(o.json));
        return EXIT.usage;
      }
      if (!(await confirmed(list))) {
        reportError(new AirlockError('authorization', 'not_confirmed', 'not confirmed: nothing was removed'), false);
        return EXIT.usage;
      }
    }
  }
  const done: string[] = [];
  if (o.purge) {
    const released = releaseCheckpoints();
    if (released) done.push(released);
  }
  for (const [unit, path] of [['airlock-console.service', CONSOLE_UNIT_PATH], ['airlock.service', UNIT_PATH]] as const) {
    if (systemdRunning() && existsSync(path)) {
      try {
        run('/usr/bin/systemctl', ['disable', '--now', unit]);
        done.push(`stopped and disabled ${unit}`);
      } catch {}
    }
  }
  for (const f of [CONSOLE_UNIT_PATH, UNIT_PATH, TMPFILES_PATH, ...Object.values(COMPLETION_PATHS), MAN_PATH]) {
    if (existsSync(f)) {
      rmSync(f);
      done.push(`removed ${f}`);
    }
  }
  if (systemdRunning()) {
    try {
      run('/usr/bin/systemctl', ['daemon-reload']);
    } catch {}
  }
  if (o.purge) {
    for (const d of PURGED.dirs) {
      if (existsSync(d)) {
        rmSync(d, { recursive: true, force: true });
        done.push(`removed ${d}`);
      }
    }
    for (const g of PURGED.groups) {
      if (groupExists(g)) {
        run('/usr/sbin/groupdel', ['--', g]);
        done.push(`removed group ${g}`);
      }
    }
  }
  const kept = leftBehind(Boolean(o.purge));
  if (o.json) printJson({ ok: true, done, ...(o.purge ? { deleted: list } : {}), kept });
  else {
    process.stdout.write(done.map((d) => `${c.green('✓')} ${d}\n`).join(''));
    process.stdout.write(`\nleft in place:\n${kept.map((k) => `  ${k.path}  (${k.what}): ${k.remove}\n`).join('')}`);
  }
  return EXIT.ok;
}
