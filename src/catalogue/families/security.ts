/** security family: see docs/actions.md. */
export {};
