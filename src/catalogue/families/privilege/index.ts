import type { AnyAction } from '../../action.js';
import { listSudoGrants, showSudoPolicyFor } from './policy-reads.js';
import { createSudoGrant, revokeSudoGrant } from './sudo-grants.js';
import { validateSudoers } from './validate-sudoers.js';

/** The privilege family: the sudo policy (its rules, those for one user, a check of the whole) and Airlock's scoped sudo grants. */
export const actions: readonly AnyAction[] = [listSudoGrants, showSudoPolicyFor, createSudoGrant, revokeSudoGrant, validateSudoers];
