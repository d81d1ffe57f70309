/** processes family: see docs/actions.md. */
export {};
