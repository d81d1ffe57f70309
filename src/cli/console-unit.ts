/**
 * What `airlock install` sets up for the web console (`airlock console`): its own system
 * account (no shell, no home: it owns no file and logs in nowhere; the daemon recognises it by
 * its uid, [console] user) and a hardened systemd unit, not enabled: a host opts in with
 * `systemctl enable --now airlock-console`. The console only serves HTTP on loopback and talks
 * to the daemon's socket, so the unit takes away everything else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePasswd } from '../protocol/account-files.js';
import { ROLE_GROUPS } from '../protocol/risk.js';
import { CHECKOUT_LAYOUT, run, type Layout } from './installation.js';

const OBSERVER_GROUP = ROLE_GROUPS.observer;

export const CONSOLE_USER = 'airlock-console';
export const CONSOLE_UNIT_PATH = '/etc/systemd/system/airlock-console.service';

/** Creates the console's system account when there is none; says what it did, or null. */
export function ensureConsoleAccount(): string | null {
  const exists = existsSync('/etc/passwd') && parsePasswd(readFileSync('/etc/passwd', 'utf8')).some((e) => e.name === CONSOLE_USER);
  if (exists) return null;
  // The daemon talks only to accounts in an airlock group: the observer's, the least (and the door lets the console relay, nothing else).
  run('/usr/sbin/useradd', ['--system', '--user-group', '--groups', OBSERVER_GROUP, '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--', CONSOLE_USER]);
  return `created the system account ${CONSOLE_USER} (no shell, no home, in ${OBSERVER_GROUP}) for the web console`;
}

/**
 * What every unprivileged Airlock service's unit takes away (the console's, the relay's): no
 * privilege, no capability, a read-only system, no devices, kernel knobs or namespaces, and the
 * system calls of an ordinary service. Each unit adds what is its own (its account, its paths).
 */
export const UNPRIVILEGED_SERVICE = `NoNewPrivileges=yes
CapabilityBoundingSet=
AmbientCapabilities=
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictSUIDSGID=yes
RestrictNamespaces=yes
RestrictRealtime=yes
LockPersonality=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
# A call outside the set fails with EPERM instead of killing the process: Node's libuv tries
# io_uring (not in @system-service) and falls back to its thread pool when refused.
SystemCallErrorNumber=EPERM
`;

export function consoleUnitFile(l: Layout = CHECKOUT_LAYOUT): string {
  return `[Unit]
Description=Airlock web console: sign in with a passkey, approve or deny (relays to the daemon)
Documentation=file://${l.docs}/docs/console.md
After=network.target airlock.service
Wants=airlock.service

[Service]
Type=simple
User=${CONSOLE_USER}
Group=${CONSOLE_USER}
ExecStart=${l.node} ${join(l.dir, 'bin', 'airlock.js')} console
Restart=on-failure
RestartSec=2
UMask=0077
# It serves HTTP on loopback and talks to the daemon's socket; nothing else.
${UNPRIVILEGED_SERVICE}RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6

[Install]
WantedBy=multi-user.target
`;
}
