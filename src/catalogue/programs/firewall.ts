/** Programs of the firewall actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_FIREWALL = {
  nft: ['/usr/sbin/nft', '/sbin/nft'],
  ufw: ['/usr/sbin/ufw', '/sbin/ufw'],
  'fail2ban-client': ['/usr/bin/fail2ban-client'],
} as const satisfies Record<string, readonly string[]>;
