/** Programs of the ssh family (absolute candidate paths; see ../../programs.ts). */
export const PROGRAMS_SSH = {
  /** -T prints the effective server configuration, -t checks it. */
  sshd: ['/usr/sbin/sshd', '/sbin/sshd'],
  /** `ssh-keygen -l -f FILE`: a host key's fingerprint. */
  'ssh-keygen': ['/usr/bin/ssh-keygen'],
  /** Established TCP connections to sshd's ports, with the processes serving them. */
  ss: ['/usr/bin/ss', '/usr/sbin/ss', '/bin/ss'],
  /** The sshd processes and the user each one serves. */
  ps: ['/usr/bin/ps', '/bin/ps'],
  /** ssh.service's state, and its reload after a change of the drop-in. */
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
} as const satisfies Record<string, readonly string[]>;
