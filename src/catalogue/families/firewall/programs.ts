/**
 * Programs the firewall family's mechanisms and state readers run (absolute candidate paths;
 * see ../../programs.ts). ss, systemctl and ls are in the base table too, with the same paths.
 */
export const PROGRAMS_FIREWALL = {
  nft: ['/usr/sbin/nft', '/sbin/nft'],
  ufw: ['/usr/sbin/ufw', '/sbin/ufw'],
  'fail2ban-client': ['/usr/bin/fail2ban-client'],
  // firewalld's client (Fedora, RHEL): `firewall-cmd [--permanent] [--zone=ZONE] --OPTION[=VALUE]`, every
  // value a zone name firewalld reported, or a port or rich rule built from validated parameters.
  'firewall-cmd': ['/usr/bin/firewall-cmd'],
  // `ss -H -l -n -t -u -p` and `ss -H -n -t state established`: what SSH depends on (sockets.ts).
  ss: ['/usr/bin/ss', '/usr/sbin/ss', '/bin/ss'],
  // `systemctl enable|disable|is-enabled -- airlock-nftables.service`: the unit that loads the table at boot.
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  // `ls -1 -A --quoting-style=escape -- /etc/fail2ban/jail.d` (lib/host-files.ts): the jail files fail2ban reads.
  ls: ['/usr/bin/ls', '/bin/ls'],
} as const satisfies Record<string, readonly string[]>;
