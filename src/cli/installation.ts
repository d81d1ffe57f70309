/**
 * What `airlock install` puts on a host and where, so that install, uninstall and doctor
 * name the same paths and modes: the directories (their modes are defaults.ts's, which the
 * daemon sets too), the systemd unit, the tmpfiles entry a boot applies, the example policy,
 * the shell completions and the man page.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONFIG_DIR_MODE, DEFAULT_CONFIG_DIR, DEFAULT_LOG_DIR, DEFAULT_RUNTIME_DIR, DEFAULT_STATE_DIR, LOG_DIR_MODE, octal, RUNTIME_DIR_MODE, STATE_DIR_MODE,
} from '../protocol/defaults.js';
import { AirlockError } from '../protocol/errors.js';
import { parseGroup } from '../protocol/account-files.js';

export const UNIT_PATH = '/etc/systemd/system/airlock.service';
export const TMPFILES_PATH = '/etc/tmpfiles.d/airlock.conf';
/** The link the README has root make; install leaves it to the person, uninstall names it. */
export const LINK_PATH = '/usr/local/bin/airlock';
/** This checkout (src/cli or dist/cli, two levels down); /usr/lib/airlock when the Debian package installed it. */
export const CHECKOUT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Where the code the units start lives, which Node runs it, and where its documents are: a
 * checkout (`airlock install`: the Node running install) or the Debian package's fixed places
 * (scripts/package.ts). One generator per file serves both.
 */
export interface Layout {
  node: string;
  dir: string;
  /** Holds README.md and docs/. */
  docs: string;
}
export const CHECKOUT_LAYOUT: Layout = { node: process.execPath, dir: CHECKOUT, docs: CHECKOUT };
export const PACKAGE_LAYOUT: Layout = { node: '/usr/bin/node', dir: '/usr/lib/airlock', docs: '/usr/share/doc/airlock' };
/**
 * This code is the Debian package's: dpkg owns the units, tmpfiles and sysusers entries,
 * completions, man page and example policy, so install writes none of them and uninstall
 * leaves removal to `apt remove` / `apt purge`. Known by where it runs from: the package's
 * directory, which a checkout has no reason to be cloned into.
 */
export const PACKAGED = CHECKOUT === PACKAGE_LAYOUT.dir;

/** Every directory install makes, with its one mode. */
export const DIRECTORIES: ReadonlyArray<{ path: string; mode: number; holds: string }> = [
  { path: DEFAULT_STATE_DIR, mode: STATE_DIR_MODE, holds: 'the store and the keys' },
  { path: DEFAULT_LOG_DIR, mode: LOG_DIR_MODE, holds: 'the signed checkpoints' },
  { path: DEFAULT_CONFIG_DIR, mode: CONFIG_DIR_MODE, holds: 'the policy' },
  { path: DEFAULT_RUNTIME_DIR, mode: RUNTIME_DIR_MODE, holds: 'the socket' },
];

export function unitFile(l: Layout = CHECKOUT_LAYOUT): string {
  return `[Unit]
Description=Airlock: typed, approved, audited actions for AI agents (LACS 0.1)
Documentation=file://${l.docs}/README.md
After=network.target

[Service]
Type=simple
ExecStart=${l.node} ${join(l.dir, 'bin', 'airlock.js')} daemon
Restart=on-failure
RestartSec=2
UMask=0022
# The daemon must change the host (it is the point), so it keeps root and the
# capabilities that actions need; everything else is fenced off.
NoNewPrivileges=yes
PrivateTmp=yes
ProtectClock=no
ProtectKernelLogs=yes
ProtectControlGroups=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictNamespaces=yes
MemoryDenyWriteExecute=no
SystemCallArchitectures=native
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
RuntimeDirectory=airlock
RuntimeDirectoryMode=${octal(RUNTIME_DIR_MODE)}
StateDirectory=airlock
StateDirectoryMode=${octal(STATE_DIR_MODE)}
LogsDirectory=airlock
LogsDirectoryMode=${octal(LOG_DIR_MODE)}

[Install]
WantedBy=multi-user.target
`;
}

/** What systemd-tmpfiles creates at every boot: the same directories and modes. */
export function tmpfilesConf(writtenBy = 'airlock install'): string {
  return `# Airlock runtime, state and log directories (written by ${writtenBy})\n${DIRECTORIES.filter((d) => d.path !== DEFAULT_CONFIG_DIR)
    .map((d) => `d ${d.path} ${octal(d.mode)} root root -\n`)
    .join('')}`;
}

export function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) throw new AirlockError('authorization', 'needs_root', `${what} needs root`, `run \`sudo airlock ${what}\``);
}

export const systemdRunning = () => existsSync('/run/systemd/system');
/** A program by absolute path with an argv array (no shell); its stdout. */
export const run = (file: string, args: string[]) => execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
export const groupExists = (g: string) => parseGroup(readFileSync('/etc/group', 'utf8')).some((e) => e.name === g);
