/** Programs of the firewall actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_FIREWALL = {
  nft: ['/usr/sbin/nft', '/sbin/nft'],
  ufw: ['/usr/sbin/ufw', '/sbin/ufw'],
  'fail2ban-client': ['/usr/bin/fail2ban-client'],
  // firewalld's client (Fedora, RHEL): `firewall-cmd [--permanent] [--zone=ZONE] --OPTION[=VALUE]`, every
  // value a zone name firewalld reported, or a port or rich rule built from validated parameters.
  'firewall-cmd': ['/usr/bin/firewall-cmd'],
} as const satisfies Record<string, readonly string[]>;
