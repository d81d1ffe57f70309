/** system family: see docs/actions.md. */
export {};
