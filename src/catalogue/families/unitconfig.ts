/** unitconfig: being written. */
export {};
