/** Programs of the logging actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_LOGGING = {} as const satisfies Record<string, readonly string[]>;
