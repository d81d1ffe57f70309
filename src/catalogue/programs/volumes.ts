/** Programs of the volumes actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_VOLUMES = {} as const satisfies Record<string, readonly string[]>;
