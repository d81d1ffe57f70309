/** Programs of the privilege actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_PRIVILEGE = {} as const satisfies Record<string, readonly string[]>;
