/**
 * How ufw changes are undone exactly (issue 27): a deleted rule is inserted again where it was,
 * in each IP family ufw keeps it in, so the rules files, `ufw status numbered` and the live
 * chains read as before. ufw keeps an IPv4 list and an IPv6 list; `ufw insert N` with a rule of
 * one family (an explicit `from 0.0.0.0/0` or `from ::/0`) puts it at its place in that list
 * alone, where a rule of both families would be placed in the second list by ufw's guess.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { command, type CommandStep } from '../../mechanism.js';
import type { StateProbe } from '../../rollback.js';
import { TUPLE, UFW_RULES, type UfwState, type UfwVerb } from './ufw-state.js';

type Family = 'v4' | 'v6';
const ANY: Record<Family, string> = { v4: '0.0.0.0/0', v6: '::/0' };

/** The rule `ufw VERB PORT/PROTO` makes, in one family, as its tuple: from anywhere to anywhere, incoming. */
const tupleOf = (verb: UfwVerb, port: number, proto: string, f: Family) => `${verb} ${proto} ${port} ${ANY[f]} any ${ANY[f]} in`;

/**
 * ufw's argv that puts one family's rule back at `position` (1-based, as `ufw status numbered`
 * counts: the IPv6 rules after all IPv4 ones) in a list that holds `count` rules without it;
 * at the end, where `insert` would be refused, it is added.
 */
function reinsert(verb: UfwVerb, port: number, proto: string, f: Family, position: number, last: boolean): string[] {
  const rule = [verb, 'proto', proto, 'from', ANY[f], 'to', 'any', 'port', String(port)];
  return last ? rule : ['insert', String(position), ...rule];
}

/** The undos of `ufw delete VERB PORT/PROTO`, in the order they run: the IPv4 rule back in its place, then the IPv6 one. */
export function specUndos(cur: UfwState, verb: UfwVerb, port: number, proto: string): CommandStep[] {
  const i4 = cur.tuples.v4.indexOf(tupleOf(verb, port, proto, 'v4'));
  const i6 = cur.tuples.v6.indexOf(tupleOf(verb, port, proto, 'v6'));
  // Not in ufw's files although `ufw show added` lists it: added again at the end, and the state check says whether that is where it was.
  if (i4 < 0 && i6 < 0) return [command('ufw', [verb, `${port}/${proto}`])];
  const n4 = cur.tuples.v4.length;
  return [
    ...(i4 >= 0 ? [command('ufw', reinsert(verb, port, proto, 'v4', i4 + 1, i4 === n4 - 1))] : []),
    // Numbered after the IPv4 rules, which are all back by then.
    ...(i6 >= 0 ? [command('ufw', reinsert(verb, port, proto, 'v6', n4 + i6 + 1, i6 === cur.tuples.v6.length - 1))] : []),
  ];
}

const ROW = /^(\d+)\/(tcp|udp)( \(v6\))?  (ALLOW|DENY|REJECT|LIMIT) IN  Anywhere( \(v6\))?$/;

/** The undo of `ufw --force delete N`: that row's rule inserted again at N, in its family. Only rows of the shape UfwAllow and UfwDeny make. */
export function numberUndo(cur: UfwState, number: number): CommandStep {
  const row = cur.numbered.find((r) => r.number === number)!;
  const m = ROW.exec(row.text);
  if (!m || Boolean(m[3]) !== Boolean(m[5])) {
    throw new AirlockError('conflict', 'not_restorable', `rule ${number} (${row.text}) is not of a shape Airlock can put back (PORT/PROTO, allow, deny, reject or limit, in, from anywhere), so it does not delete it`, 'delete it with ufw at the console');
  }
  const f: Family = m[3] ? 'v6' : 'v4';
  const n4 = cur.numbered.filter((r) => !/ \(v6\)/.test(r.text)).length;
  const last = f === 'v4' ? number === n4 : number === cur.numbered.length;
  return command('ufw', reinsert(m[4]!.toLowerCase() as UfwVerb, Number(m[1]), m[2]!, f, number, last));
}

/**
 * What a ufw change is checked against: the rules in ufw's files (their tuple lines, in order: ufw
 * rewrites a file in its own layout, which is not the layout the package installs it in), its
 * numbered status (whether it runs, and the rules' numbers), and its live chains as nft lists
 * them without counters.
 */
export const ufwProbes = (): StateProbe[] => [
  { file: UFW_RULES.v4, lines: TUPLE },
  { file: UFW_RULES.v6, lines: TUPLE },
  { program: 'ufw', args: ['status', 'numbered'] },
  { program: 'nft', args: ['--stateless', 'list', 'chain', 'ip', 'filter', 'ufw-user-input'] },
  { program: 'nft', args: ['--stateless', 'list', 'chain', 'ip6', 'filter', 'ufw6-user-input'] },
];
