/** network family: see docs/actions.md. */
export {};
