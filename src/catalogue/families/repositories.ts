/** Package repositories, pins and unattended upgrades (family packages): see docs/actions.md. */
export {};
