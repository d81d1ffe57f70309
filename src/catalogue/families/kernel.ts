/** kernel family: see docs/actions.md. */
export {};
