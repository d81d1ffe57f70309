/**
 * Unattended upgrades: the two APT::Periodic settings in the one file Debian's own tooling
 * writes for the purpose (`20auto-upgrades`). apt reads its whole configuration back before
 * the job counts as done: a file it cannot parse fails the job and is restored.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileScan, fileWrite } from '../../mechanism.js';
import { params } from '../../params.js';
import { dpkgEntries, firstError } from '../../lib/apt.js';
import { installedVersion } from './manager.js';
import { exact } from '../../rollback.js';

const AUTO_UPGRADES = '/etc/apt/apt.conf.d/20auto-upgrades';
const UU_CONFIG = '/etc/apt/apt.conf.d/50unattended-upgrades';
const UU_PACKAGE = 'unattended-upgrades';
const PERIODIC_KEYS = ['APT::Periodic::Update-Package-Lists', 'APT::Periodic::Unattended-Upgrade'] as const;
const PERIODIC_DUMP = ['dump', '--format', '%f=%v%n', 'APT::Periodic'];
const PERIODIC_LINE = /^\s*(APT::Periodic::(?:Update-Package-Lists|Unattended-Upgrade))\s+"([^"]*)"\s*;\s*$/;

/** The two settings as a file sets them, one per line ("KEY "VALUE";"), or as apt resolves them from all files. */
function periodicValues(lines: string[], re: RegExp): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    const m = re.exec(l);
    if (m && (PERIODIC_KEYS as readonly string[]).includes(m[1]!)) out[m[1]!] = m[2]!;
  }
  return out;
}

/**
 * 20auto-upgrades with both settings at `enabled`: lines setting them are rewritten in
 * place, missing ones appended, every other line kept as it is.
 */
export function autoUpgradesText(existing: string | null, enabled: boolean): string {
  const value = enabled ? '1' : '0';
  const lines = existing ? existing.replace(/\n$/, '').split('\n') : [];
  const seen = new Set<string>();
  const out = lines.map((l) => {
    const m = PERIODIC_LINE.exec(l);
    if (!m) return l;
    seen.add(m[1]!);
    return `${m[1]} "${value}";`;
  });
  for (const k of PERIODIC_KEYS) if (!seen.has(k)) out.push(`${k} "${value}";`);
  return out.join('\n') + '\n';
}

async function unattendedState(host: Host) {
  const dpkg = await dpkgEntries(host, [UU_PACKAGE]);
  const text = await host.readFile(AUTO_UPGRADES);
  const r = await host.run('apt-config', PERIODIC_DUMP);
  if (r.code !== 0) throw new AirlockError('execution', 'apt_config_failed', `apt cannot read its configuration: ${firstError(r.stderr)}`);
  return {
    installed: installedVersion(dpkg),
    file: text,
    fileSets: periodicValues((text ?? '').split('\n'), PERIODIC_LINE),
    effective: periodicValues(r.stdout.split('\n'), /^(APT::Periodic::[A-Za-z-]+)=(.*)$/),
    config: (await host.stat(UU_CONFIG))?.isFile ?? false,
  };
}

export const unattendedUpgradesStatus = action({
  name: 'UnattendedUpgradesStatus',
  family: 'packages',
  description: 'Show whether unattended upgrades are installed and switched on: the package, apt\'s effective APT::Periodic settings, 20auto-upgrades and 50unattended-upgrades.',
  risk: 'low',
  readOnly: true,
  // Sensitive: the unattended-upgrades configuration files, in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [AUTO_UPGRADES, UU_CONFIG],
  example: {},
  current: (_p, host) => unattendedState(host),
  preview: (_p, cur) => ({
    summary: `Show the unattended-upgrades state (package ${cur.installed ? `${cur.installed} installed` : 'not installed'}, Unattended-Upgrade=${cur.effective['APT::Periodic::Unattended-Upgrade'] ?? 'unset'})`,
    change: null,
  }),
  mechanism: (_p, cur) => [
    command('dpkg-query', ['-W', '--showformat=${db:Status-Abbrev} ${Package} ${Version}\n', '--', UU_PACKAGE], { okCodes: [0, 1] }),
    command('apt-config', PERIODIC_DUMP),
    ...(cur.file !== null ? [fileScan(AUTO_UPGRADES)] : []),
    ...(cur.config ? [fileScan(UU_CONFIG)] : []),
  ],
});

export const setUnattendedUpgrades = action({
  name: 'SetUnattendedUpgrades',
  family: 'packages',
  description: 'Switch the daily list refresh and unattended upgrades on or off (APT::Periodic settings in /etc/apt/apt.conf.d/20auto-upgrades).',
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ enabled: z.boolean() }),
  files: [AUTO_UPGRADES],
  example: { enabled: true },
  current: (_p, host) => unattendedState(host),
  check: ({ enabled }, cur) => {
    if (enabled && !cur.installed) throw new AirlockError('conflict', 'not_installed', `${UU_PACKAGE} is not installed, so nothing would run the upgrades`, `install it first: InstallPackage {"package": "${UU_PACKAGE}"}`);
    if (cur.file === autoUpgradesText(cur.file, enabled)) {
      return unchanged(`${AUTO_UPGRADES} already switches them ${enabled ? 'on' : 'off'} (effective: ${PERIODIC_KEYS.map((k) => `${k}=${cur.effective[k] ?? 'unset'}`).join(', ')})`);
    }
  },
  preview: ({ enabled }, cur) => {
    const value = enabled ? '1' : '0';
    const overridden = PERIODIC_KEYS.filter((k) => cur.fileSets[k] !== undefined && cur.effective[k] !== undefined && cur.effective[k] !== cur.fileSets[k]);
    return {
      summary: `Switch unattended upgrades ${enabled ? 'on' : 'off'}`,
      change: { file: AUTO_UPGRADES, content: autoUpgradesText(cur.file, enabled), from: PERIODIC_KEYS.map((k) => `${k}=${cur.effective[k] ?? 'unset'}`), to: PERIODIC_KEYS.map((k) => `${k}=${value}`) },
      sideEffects: [
        enabled
          ? 'apt-daily.timer refreshes the lists and apt-daily-upgrade.timer installs the upgrades allowed by 50unattended-upgrades (security updates by default), unattended'
          : 'security updates are no longer installed automatically: someone must run UpgradeAll',
      ],
      warnings: overridden.map((k) => `another apt.conf.d file overrides ${k} (effective ${cur.effective[k]}, while ${AUTO_UPGRADES} says ${cur.fileSets[k]})`),
    };
  },
  // apt reads its whole configuration back: a file it cannot parse fails the job and is restored.
  mechanism: ({ enabled }, cur) => [fileWrite(AUTO_UPGRADES, autoUpgradesText(cur.file, enabled), { mode: 0o644 }), command('apt-config', PERIODIC_DUMP, { noUndo: 'changes_nothing' })],
});
