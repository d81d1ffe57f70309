/** volumes: being written. */
export {};
