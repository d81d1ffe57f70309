/** Programs of the accounts actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_ACCOUNTS = {} as const satisfies Record<string, readonly string[]>;
