/** Programs of the firewall actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_FIREWALL = {} as const satisfies Record<string, readonly string[]>;
