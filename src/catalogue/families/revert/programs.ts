/**
 * Programs of the revert family: none of its own. A revert runs the undo commands the reverted
 * change's steps declared (their programs are in their families' tables), and probes with the
 * programs its rollback declared.
 */
export const PROGRAMS_REVERT = {} as const satisfies Record<string, readonly string[]>;
