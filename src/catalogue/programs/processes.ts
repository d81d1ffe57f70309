/** Programs of the processes actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_PROCESSES = {} as const satisfies Record<string, readonly string[]>;
