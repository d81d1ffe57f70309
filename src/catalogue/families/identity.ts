/** identity family: see docs/actions.md. */
export {};
