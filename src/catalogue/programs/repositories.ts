/** Programs of the repositories actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_REPOSITORIES = {
  /** Reads an OpenPGP key file back (`--show-keys`, never an import) to confirm a repository key before apt uses it. */
  gpg: ['/usr/bin/gpg'],
  /** Prints apt's effective configuration (one subtree), and fails when a configuration file does not parse. */
  'apt-config': ['/usr/bin/apt-config'],
} as const satisfies Record<string, readonly string[]>;
