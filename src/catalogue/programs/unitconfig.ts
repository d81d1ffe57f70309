/** Programs of the unitconfig actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_UNITCONFIG = {} as const satisfies Record<string, readonly string[]>;
