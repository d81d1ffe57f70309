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
  // The configuration checkers (config-checkers.ts): each service's own check, staged or live.
  /** `nginx -t -q -c STAGED_WRAPPER`, `nginx -t -q`. */
  nginx: ['/usr/sbin/nginx'],
  /** `sshd -t -f STAGED`, `sshd -t` (the same candidates as families/ssh). */
  sshd: ['/usr/sbin/sshd', '/sbin/sshd'],
  /** `visudo -c -q -f STAGED`, `visudo -c -q` (the same candidates as families/privilege). */
  visudo: ['/usr/sbin/visudo', '/sbin/visudo'],
  /** `named-checkconf -c STAGED` (bind9-utils puts it in /usr/bin; older packages in /usr/sbin). */
  'named-checkconf': ['/usr/bin/named-checkconf', '/usr/sbin/named-checkconf'],
  /** `systemd-analyze verify --man=false ... STAGED` (the same candidates as families/logging). */
  'systemd-analyze': ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'],
  /** `postfix check`: the installed configuration only. */
  postfix: ['/usr/sbin/postfix'],
  /** `apachectl configtest`: Debian's apachectl is a link to apache2ctl; RHEL's is its own. */
  apachectl: ['/usr/sbin/apachectl'],
} as const satisfies Record<string, readonly string[]>;
