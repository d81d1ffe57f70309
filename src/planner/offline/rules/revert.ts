/** Rules of the revert family: undo a finished change, named by its transaction id (airlock history lists them). */
import { missing, rule, step, steps } from '../rule.js';

const TX = /^tx_[0-9a-f]{24}$/;

export const revertRules = [
  rule('revert.transaction', [['revert', 'undo', 'roll back', 'rollback', 'reverse']], (c) => {
    const id = c.takeToken((t) => TX.test(t.low));
    return id === null ? missing('which change to undo: its transaction id, tx_ and 24 hex digits (airlock history lists them)') : steps(step('RevertTransaction', { transaction_id: id.toLowerCase() }, `undo the change ${id.toLowerCase()} from the state it kept`));
  }, { also: ['the', 'change', 'transaction', 'of', 'made', 'by', 'please', 'last'] }),
];
