/**
 * Programs of the packages family: its mechanisms and state readers, and the readers of
 * ../../lib/apt.ts and ../../lib/dnf.ts it uses (absolute candidate paths; see ../../programs.ts).
 */
export const PROGRAMS_PACKAGES = {
  'apt-get': ['/usr/bin/apt-get'],
  'apt-cache': ['/usr/bin/apt-cache'],
  'apt-mark': ['/usr/bin/apt-mark'],
  /** Prints apt's effective configuration (one subtree), and fails when a configuration file does not parse. */
  'apt-config': ['/usr/bin/apt-config'],
  dpkg: ['/usr/bin/dpkg'],
  'dpkg-query': ['/usr/bin/dpkg-query'],
  /** Fedora and RHEL (see ./manager.ts): `dnf [--cacheonly] COMMAND [options] SPEC`, never `--` (dnf5 refuses it). */
  dnf: ['/usr/bin/dnf'],
  /** `rpm --query|--verify [options] -- NAME|PATH`. */
  rpm: ['/usr/bin/rpm', '/bin/rpm'],
  /** Reads an OpenPGP key file back (`--show-keys`, never an import) to confirm a repository key before apt uses it. */
  gpg: ['/usr/bin/gpg'],
} as const satisfies Record<string, readonly string[]>;
