/** Programs of the containers family (absolute candidate paths; see ../../programs.ts). */
export const PROGRAMS_CONTAINERS = {
  /**
   * Podman, always with a subcommand first and `--` before a container reference:
   * `--version`; `ps --all --format json`; `images --format json`; `container inspect -- REF`;
   * `start -- ID`; `stop --time N -- ID`; `restart --time N -- ID`; `logs --tail N -- ID`;
   * `container inspect --format {{.State.Running}} -- ID` (a change's state probe).
   * It runs containers through conmon and an OCI runtime itself, never through a shell.
   */
  podman: ['/usr/bin/podman'],
} as const satisfies Record<string, readonly string[]>;
