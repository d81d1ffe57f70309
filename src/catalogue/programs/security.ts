/** Programs of the security actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_SECURITY = {} as const satisfies Record<string, readonly string[]>;
