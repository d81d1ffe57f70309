/** containers: being written. */
export {};
