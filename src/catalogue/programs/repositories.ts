/** Programs of the repositories actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_REPOSITORIES = {} as const satisfies Record<string, readonly string[]>;
