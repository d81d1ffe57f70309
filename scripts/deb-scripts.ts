/**
 * The Debian package's control file and maintainer scripts. dpkg runs the scripts with
 * /bin/sh (no shell exists in the daemon, and none is added there): each is a few POSIX
 * lines whose names come from the constants install and uninstall use, so `apt purge`
 * removes exactly what `airlock uninstall --purge` does (its PURGED list).
 */
import { PURGED } from '../src/cli/uninstall.js';

const UNITS = ['airlock.service', 'airlock-console.service'];
/** systemd is running here (not a chroot or an image build): only then start, stop or reload. */
const BOOTED = '[ -d /run/systemd/system ]';

export interface ControlFields {
  version: string;
  arch: string;
  /** KiB, as dpkg counts Installed-Size. */
  installedKiB: number;
}

export function controlFile(f: ControlFields): string {
  return `Package: airlock
Version: ${f.version}
Architecture: ${f.arch}
Maintainer: Airlock maintainers <airlock@example.org>
Installed-Size: ${f.installedKiB}
Depends: nodejs (>= 20), systemd, e2fsprogs, passwd
Section: admin
Priority: optional
Homepage: https://git.example.org/airlock
Description: typed, approved, audited actions for AI agents (LACS 0.1)
 Airlock lets an AI agent administer this host without a shell: it asks for
 typed actions, a person approves the exact previewed change, a root daemon
 executes it and signs an audit log anyone can verify.
 .
 The package carries its Node dependencies and native addons built for this
 architecture: installing it needs neither a compiler nor the npm registry.
`;
}

/**
 * configure: the groups and the console's account (sysusers), the directories (tmpfiles), then
 * the service enabled (unless the admin disabled it before an upgrade) and started (restart:
 * also right for a service the prerm did not stop, as after abort-upgrade). The console's
 * service is the admin's to enable (docs/console.md): started again only when it is enabled.
 */
export function postinst(): string {
  return `#!/bin/sh
# airlock postinst (written by scripts/package.ts)
set -e
case "$1" in configure|abort-upgrade|abort-deconfigure|abort-remove) ;; *) exit 0 ;; esac
systemd-sysusers airlock.conf
systemd-tmpfiles --create airlock.conf
if command -v deb-systemd-helper >/dev/null; then
  if deb-systemd-helper --quiet was-enabled airlock.service; then deb-systemd-helper enable airlock.service; else deb-systemd-helper update-state airlock.service; fi
elif ${BOOTED}; then
  systemctl enable airlock.service
fi
if ${BOOTED}; then
  systemctl daemon-reload
  if command -v deb-systemd-invoke >/dev/null; then invoke=deb-systemd-invoke; else invoke=systemctl; fi
  $invoke restart airlock.service
  if systemctl --quiet is-enabled airlock-console.service; then $invoke restart airlock-console.service; fi
fi
`;
}

/**
 * Both services stopped before their code is removed or replaced: on an upgrade too, since a
 * running daemon starts worker threads from its files (the verifier, the masking pool) and would
 * otherwise run the new version's beside its own until the new postinst starts it again.
 */
export function prerm(): string {
  return `#!/bin/sh
# airlock prerm (written by scripts/package.ts)
set -e
case "$1" in remove|upgrade|deconfigure) ;; *) exit 0 ;; esac
if ${BOOTED}; then systemctl stop ${UNITS.join(' ')}; fi
`;
}

/**
 * remove keeps the audit trail, the keys and the groups. purge removes what
 * `airlock uninstall --purge` removes: the checkpoint file's append-only attribute is cleared
 * first (a file system without attributes has none; one whose attribute stays makes the rm
 * fail, and the purge with it, leaving the trail as it was), then the directories, the groups.
 * The console's account stays, as with uninstall; dpkg removes the policy (a conffile).
 */
export function postrm(): string {
  return `#!/bin/sh
# airlock postrm (written by scripts/package.ts)
set -e
if ${BOOTED}; then systemctl daemon-reload; fi
if [ "$1" = purge ]; then
  if command -v deb-systemd-helper >/dev/null; then deb-systemd-helper purge ${UNITS.join(' ')}; fi
  if [ -e ${PURGED.appendOnly} ]; then chattr -a -- ${PURGED.appendOnly} 2>/dev/null || true; fi
  rm -rf -- ${PURGED.dirs.join(' ')}
  for g in ${PURGED.groups.join(' ')}; do
    if getent group "$g" >/dev/null; then groupdel "$g"; fi
  done
fi
`;
}
