/** firewall family: see docs/actions.md. */
export {};
