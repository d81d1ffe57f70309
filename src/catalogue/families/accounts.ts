/** accounts: being written. */
export {};
