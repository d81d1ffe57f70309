/** Locale and NTP actions (family identity): see docs/actions.md. */
export {};
