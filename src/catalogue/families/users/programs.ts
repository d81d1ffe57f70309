/** Programs of the users family (absolute candidate paths; see ../../programs.ts). */
export const PROGRAMS_USERS = {
  useradd: ['/usr/sbin/useradd', '/sbin/useradd'],
  userdel: ['/usr/sbin/userdel', '/sbin/userdel'],
  usermod: ['/usr/sbin/usermod', '/sbin/usermod'],
  groupadd: ['/usr/sbin/groupadd', '/sbin/groupadd'],
  groupdel: ['/usr/sbin/groupdel', '/sbin/groupdel'],
  /** `gpasswd -d USER -- GROUP` removes a supplementary member. */
  gpasswd: ['/usr/bin/gpasswd', '/bin/gpasswd'],
  /** Account expiry (-E) and password ageing (--mindays, --maxdays, --warndays, --inactive, --lastday, --list). */
  chage: ['/usr/bin/chage', '/bin/chage'],
  id: ['/usr/bin/id', '/bin/id'],
  /** `ps -o pid= -u UID`: whether a user DeleteUser would remove still runs processes. */
  ps: ['/usr/bin/ps', '/bin/ps'],
  /** `lastlog` (every account) or `lastlog --user NAME`: each account's last login, from /var/log/lastlog. */
  lastlog: ['/usr/bin/lastlog'],
  /** `who --heading --users`: the logins recorded in utmp, with terminal, time, idle time, pid and remote host. */
  who: ['/usr/bin/who', '/bin/who'],
} as const satisfies Record<string, readonly string[]>;
