/** packages family: see docs/actions.md. */
export {};
