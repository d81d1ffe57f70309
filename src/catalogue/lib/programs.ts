/**
 * Programs the library itself runs on the families' behalf (absolute candidate paths; see
 * ../programs.ts): a family whose state reader calls one of these through lib/ need not
 * list it again, though it may, with the same paths.
 */
export const PROGRAMS_LIB = {
  /** `ls -1 -A --quoting-style=escape -- DIR` (host-files.ts: listDirectory). */
  ls: ['/usr/bin/ls', '/bin/ls'],
  /** `readlink -- PATH` (host-files.ts: linkTarget). */
  readlink: ['/usr/bin/readlink', '/bin/readlink'],
  /** `systemctl show --no-pager -p PROPS -- UNIT` (systemd.ts: readUnit). */
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  /** `dpkg-query -W --showformat=FORMAT -- NAME...` (apt.ts: dpkgEntries). */
  'dpkg-query': ['/usr/bin/dpkg-query'],
  /** `apt-cache policy -- NAME` (apt.ts: aptPolicy). */
  'apt-cache': ['/usr/bin/apt-cache'],
  /** `rpm --query --queryformat=FORMAT -- NAME...` (dnf.ts: rpmEntries). */
  rpm: ['/usr/bin/rpm', '/bin/rpm'],
} as const satisfies Record<string, readonly string[]>;
