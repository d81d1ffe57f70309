/** files family: see docs/actions.md. */
export {};
