/** Programs of the diagnostics actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_DIAGNOSTICS = {} as const satisfies Record<string, readonly string[]>;
