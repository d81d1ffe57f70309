/** diagnostics: being written. */
export {};
