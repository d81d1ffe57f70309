/** scheduling family: see docs/actions.md. */
export {};
