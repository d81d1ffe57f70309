/** users family: see docs/actions.md. */
export {};
