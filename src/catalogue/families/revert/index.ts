import type { AnyAction } from '../../action.js';
import { revertTransaction } from './revert.js';

/** The revert family: undoing a finished change from what it kept (issue 27). */
export const actions: readonly AnyAction[] = [revertTransaction];
