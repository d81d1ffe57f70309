/** Programs of the containers actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_CONTAINERS = {} as const satisfies Record<string, readonly string[]>;
