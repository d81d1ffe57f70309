/**
 * The test bed's Debian root: Debian 12 (bookworm) built once with debootstrap,
 * then booted (read-only, under a fresh overlay each time) by systemd-nspawn.
 * Built into a temporary directory and renamed into place, so a half-built root
 * is never used. `node --import tsx src/sandbox/testbed-root.ts` builds it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the package list changes, so an old root is not reused. */
const VERSION = 6;
export const TESTBED_PACKAGES = [
  'systemd', 'systemd-sysv', 'dbus', 'libstdc++6', 'iproute2', 'procps', 'openssh-client', 'kmod',
  // what the families that run in the test bed manage
  'openssh-server', 'sudo', 'nftables', 'ufw', 'fail2ban', 'cron', 'logrotate', 'locales', 'systemd-timesyncd',
  'auditd', 'libpam-pwquality', 'openssl', 'apparmor', 'apparmor-utils', 'e2fsprogs', 'ca-certificates',
  // containers: podman with its runtime and monitor; netavark, named so that the network stack
  // containers-common depends on (a virtual package) is not left to the resolver; catatonit for
  // `--init`; busybox-static, whose one binary is the image the scenarios import (no registry is reachable)
  'podman', 'crun', 'conmon', 'netavark', 'catatonit', 'busybox-static',
  // CheckTcpPort's `nc -z`
  'netcat-openbsd',
  // a service whose configuration is edited under a grant and checked with its own `nginx -t` (issue 29)
  'nginx-light',
];
const MIRROR = 'http://deb.debian.org/debian';
const MARKER = '.airlock-testbed-complete';

export function testbedRoot(): string {
  const chosen = process.env.AIRLOCK_TESTBED_ROOT || `/var/tmp/airlock-testbed/bookworm-v${VERSION}`;
  // It is removed and rebuilt by path: only ever an absolute path, never the working directory.
  if (!chosen.startsWith('/') || chosen.split('/').filter(Boolean).length < 2) throw new Error(`AIRLOCK_TESTBED_ROOT must be an absolute path at least two levels deep, not ${JSON.stringify(chosen)}`);
  return chosen;
}

export function testbedMissing(): string | null {
  if (process.getuid?.() !== 0) return 'the test bed needs root';
  for (const [bin, pkg] of [['/usr/sbin/debootstrap', 'debootstrap'], ['/usr/bin/systemd-nspawn', 'systemd-container']]) {
    if (!existsSync(bin!)) return `${bin} is missing (apt-get install ${pkg})`;
  }
  return null;
}

export function testbedReady(): boolean {
  return existsSync(join(testbedRoot(), MARKER));
}

export function buildTestbedRoot(log: (s: string) => void = () => {}): string {
  const root = testbedRoot();
  if (testbedReady()) return root;
  const why = testbedMissing();
  if (why) throw new Error(why);
  const tmp = `${root}.building-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(dirname(root), { recursive: true });
  log(`building the test-bed root (Debian 12, ${TESTBED_PACKAGES.length} extra packages) in ${root}; several minutes (podman and its runtime are large)`);
  execFileSync('/usr/sbin/debootstrap', ['--variant=minbase', `--include=${TESTBED_PACKAGES.join(',')}`, 'bookworm', tmp, MIRROR], { stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(join(tmp, MARKER), `${new Date().toISOString()}\n`);
  rmSync(root, { recursive: true, force: true });
  renameSync(tmp, root);
  return root;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildTestbedRoot((s) => process.stdout.write(s + '\n'));
  process.stdout.write(`${testbedRoot()} ready\n`);
}
