/** privilege family: see docs/actions.md. */
export {};
