/**
 * Programs of the security family (absolute candidate paths; see ../../programs.ts). The
 * last block is also in BASE_PROGRAMS, with the same paths: what this family's actions and
 * the library readers they use (dpkgEntries, linkTarget, listDirectory) run.
 */
export const PROGRAMS_SECURITY = {
  // auditd: auditctl talks to the kernel (`-l` lists its rules: also a state probe); augenrules (a
  // root-owned sh script of the auditd package, run with fixed arguments) rebuilds
  // /etc/audit/audit.rules from rules.d, or with `--check` only says whether it would.
  auditctl: ['/usr/sbin/auditctl', '/sbin/auditctl'],
  augenrules: ['/usr/sbin/augenrules', '/sbin/augenrules'],
  // AppArmor: aa-enabled and aa-status come with apparmor, aa-complain and aa-enforce with apparmor-utils.
  'aa-enabled': ['/usr/bin/aa-enabled', '/usr/sbin/aa-enabled'],
  'aa-status': ['/usr/sbin/aa-status', '/sbin/aa-status'],
  'aa-complain': ['/usr/sbin/aa-complain'],
  'aa-enforce': ['/usr/sbin/aa-enforce'],
  apparmor_parser: ['/usr/sbin/apparmor_parser', '/sbin/apparmor_parser'],
  openssl: ['/usr/bin/openssl'],
  // SELinux (Fedora, RHEL): `sestatus`; `getenforce`; `setenforce Enforcing|Permissive`;
  // `getsebool -a` or `getsebool -- NAME`; `setsebool -P -- NAME on|off`.
  sestatus: ['/usr/sbin/sestatus', '/sbin/sestatus'],
  getenforce: ['/usr/sbin/getenforce', '/sbin/getenforce'],
  setenforce: ['/usr/sbin/setenforce', '/sbin/setenforce'],
  getsebool: ['/usr/sbin/getsebool', '/sbin/getsebool'],
  setsebool: ['/usr/sbin/setsebool', '/sbin/setsebool'],
  // Also in BASE_PROGRAMS: `systemctl show ... -- auditd.service`; `ls -l -b ... -- DIR`, and
  // the directory listings; `readlink -- PATH`; `dpkg-query -W` of libpam-pwquality, libpwquality1.
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  ls: ['/usr/bin/ls', '/bin/ls'],
  readlink: ['/usr/bin/readlink', '/bin/readlink'],
  'dpkg-query': ['/usr/bin/dpkg-query'],
} as const satisfies Record<string, readonly string[]>;
