/** logging family: see docs/actions.md. */
export {};
