import type { AnyAction } from '../../action.js';
import { revertTransaction } from './revert.js';

/**
 * The revert family: undoing a finished change from what it kept (issue 27). Its one action may
 * write any file another action may (it puts back what they wrote), so the catalogue gives it
 * their files when it is assembled (src/catalogue/index.ts).
 */
export const revertActions = (filesOfOthers: readonly string[]): readonly AnyAction[] => [revertTransaction(filesOfOthers)];
