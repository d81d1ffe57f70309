/**
 * One change of table inet airlock: its refusals, its preview and its steps. Every change
 * rebuilds the table's whole desired state, writes it to the file loaded at boot, checks it
 * with `nft --check --file`, then changes the live table in one nft transaction.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { command, fileWrite, type Step } from '../../mechanism.js';
import type { StateProbe } from '../../rollback.js';
import { lockOutError } from './lockout.js';
import { lockoutProblems } from './nft-rules.js';
import type { NftState } from './nft-state.js';
import { CHAINS, NFT_FILE, NFT_UNIT, NFT_UNIT_PATH, NFT_UNIT_TEXT, renderTable, type Rule, type TableModel } from './nft-table.js';

/** Handles of the rules that stay (new rules have none). */
const keptHandles = (rules: Rule[]) => new Set(rules.flatMap((r) => (r.handle === undefined ? [] : [r.handle])));

export const cloneModel = (t: TableModel): TableModel => ({
  input: { policy: t.input.policy, rules: [...t.input.rules] },
  forward: { policy: t.forward.policy, rules: [...t.forward.rules] },
});

/** The refusals every nft change shares: a table Airlock fully understands, and no new way to cut SSH off. */
export function checkNftChange(cur: NftState, next: TableModel): void {
  if (cur.table.unmanaged.length) {
    throw new AirlockError(
      'conflict',
      'unmanaged_table_content',
      `table inet airlock holds what Airlock did not write: ${cur.table.unmanaged.join('; ')}`,
      'Airlock owns that table alone: move your own chains, sets and rules to a table of your own, then try again',
    );
  }
  if (cur.unit.masked) throw new AirlockError('conflict', 'boot_unit_masked', `${NFT_UNIT_PATH} is a symbolic link (masked?), so the table could not be loaded at boot`, `remove the link by hand, then try again`);
  const before = new Set(lockoutProblems(cur.table.chains, cur.sockets));
  const added = lockoutProblems(next, cur.sockets).filter((p) => !before.has(p));
  if (added.length) {
    const sshPort = cur.sockets.sshPorts[0]!;
    throw lockOutError(
      added,
      `keep SSH reachable first (AllowPort {"port": ${sshPort}, "protocol": "tcp"}) and keep accepting replies while input drops by default, or have a person at the console make this change`,
    );
  }
}

/** The concrete change: per chain, the policy, rules added and removed, and the rules in order afterwards. */
export function nftChange(cur: NftState, next: TableModel) {
  const chains: Record<string, unknown> = {};
  for (const c of CHAINS) {
    const before = cur.table.chains[c];
    const after = next[c];
    const kept = keptHandles(after.rules);
    const add = after.rules.filter((r) => r.handle === undefined).map((r) => r.text);
    const remove = before.rules.filter((r) => !kept.has(r.handle!)).map((r) => `${r.text} # handle ${r.handle}`);
    if (!add.length && !remove.length && before.policy === after.policy) continue;
    chains[c] = {
      policy: before.policy === after.policy ? after.policy : { from: before.policy, to: after.policy },
      add,
      remove,
      rules_after: after.rules.map((r) => r.text),
    };
  }
  return {
    table: 'inet airlock',
    creates_table: !cur.table.exists,
    chains,
    file: NFT_FILE,
    apply: fullLoad(cur)
      ? `writes ${NFT_FILE}, checks it with \`nft --check --file\`, then loads it with \`nft --file\` in one transaction; no other table is touched`
      : `writes ${NFT_FILE} (the whole table, for boot) and checks it with \`nft --check --file\`, then applies only this difference to the live table in one nft transaction: rules that stay keep their handles; no other table is touched`,
    boot:
      cur.unit.enabled && cur.unit.current
        ? `${NFT_UNIT} (enabled) loads ${NFT_FILE} at boot`
        : `${cur.unit.current ? '' : `writes ${NFT_UNIT_PATH} and `}enables ${NFT_UNIT}, which loads ${NFT_FILE} at boot`,
  };
}

export function nftWarnings(cur: NftState): string[] {
  const out: string[] = [];
  if (cur.saved !== null && cur.saved !== renderTable(cur.table.chains)) {
    out.push(`${NFT_FILE} differs from the live table (edited by hand, or not loaded): it is rewritten from the live table, and what only the file holds is lost`);
  }
  return out;
}

/** A missing table or chain has no handles to keep: the whole file is loaded instead of a difference. */
const fullLoad = (cur: NftState) => !cur.table.exists || CHAINS.some((c) => !cur.table.present.includes(c));

/**
 * The argv of one nft invocation (one transaction) that turns the live table into
 * `next`: removed rules deleted by handle, new ones inserted after the nearest rule
 * that stays before them (or first), policies set. Rules that stay keep their handles.
 */
export function nftDelta(cur: TableModel, next: TableModel): string[] {
  const cmds: string[][] = [];
  for (const c of CHAINS) {
    const kept = keptHandles(next[c].rules);
    for (const r of cur[c].rules) if (!kept.has(r.handle!)) cmds.push(['delete', 'rule', 'inet', 'airlock', c, 'handle', String(r.handle)]);
    let anchor: number | undefined;
    let run: string[] = [];
    // Each run of new rules is added in reverse at the same place, so it keeps its order.
    const flush = () => {
      for (const text of run.reverse()) cmds.push(anchor === undefined ? ['insert', 'rule', 'inet', 'airlock', c, text] : ['add', 'rule', 'inet', 'airlock', c, 'position', String(anchor), text]);
      run = [];
    };
    for (const r of next[c].rules) {
      if (r.handle !== undefined) {
        flush();
        anchor = r.handle;
      } else run.push(r.text);
    }
    flush();
    if (cur[c].policy !== next[c].policy) cmds.push(['chain', 'inet', 'airlock', c, `{ policy ${next[c].policy} ; }`]);
  }
  return cmds.flatMap((cmd, i) => (i ? [';', ...cmd] : cmd));
}

/**
 * The one nft transaction that turns the live table back into `cur` once it is `next`: the
 * table deleted when there was none; rules the change removed put back in their places and
 * policies set back, every other rule keeping its handle; and when the change added rules
 * (their handles are known only once nft has given them) or loaded the whole file, the table
 * emptied and filled again as it was. The rules and policies are then as before; the handles of
 * the rules put back are new ones, since nft never gives a handle twice.
 */
export function nftUndo(cur: NftState, next: TableModel): string[] {
  if (!cur.table.exists) return ['delete', 'table', 'inet', 'airlock'];
  const added = CHAINS.some((c) => next[c].rules.some((r) => r.handle === undefined));
  if (!added && !fullLoad(cur)) {
    const kept = new Set(CHAINS.flatMap((c) => [...keptHandles(next[c].rules)]));
    const back = cloneModel(cur.table.chains);
    for (const c of CHAINS) back[c].rules = back[c].rules.map((r) => (kept.has(r.handle!) ? r : { text: r.text }));
    return nftDelta(next, back);
  }
  const cmds: string[][] = [['flush', 'table', 'inet', 'airlock']];
  for (const c of CHAINS) {
    if (!cur.table.present.includes(c)) {
      cmds.push(['delete', 'chain', 'inet', 'airlock', c]);
      continue;
    }
    cmds.push(['chain', 'inet', 'airlock', c, `{ policy ${cur.table.chains[c].policy} ; }`]);
    for (const r of cur.table.chains[c].rules) cmds.push(['add', 'rule', 'inet', 'airlock', c, r.text]);
  }
  return cmds.flatMap((cmd, i) => (i ? [';', ...cmd] : cmd));
}

/**
 * Writes the desired state, checks it, makes sure it loads at boot, then changes the
 * live table (last: nothing can fail after it, and a failing transaction changes nothing).
 * Undone last first: the live table set back, the unit disabled, the files restored.
 */
export function nftSteps(cur: NftState, next: TableModel): Step[] {
  const steps: Step[] = [fileWrite(NFT_FILE, renderTable(next), { mode: 0o644, parent: { mode: 0o755 } }), command('nft', ['--check', '--file', NFT_FILE], { noUndo: 'changes_nothing' })];
  if (!cur.unit.current) steps.push(fileWrite(NFT_UNIT_PATH, NFT_UNIT_TEXT, { mode: 0o644 }));
  if (!cur.unit.enabled) steps.push(command('systemctl', ['enable', '--', NFT_UNIT], { undo: command('systemctl', ['disable', '--', NFT_UNIT]) }));
  steps.push(command('nft', fullLoad(cur) ? ['--file', NFT_FILE] : nftDelta(cur.table.chains, next), { undo: command('nft', nftUndo(cur, next)) }));
  return steps;
}

/** What an nft change is checked against: the table's rules and policies as listed without handles (see nftUndo), and whether it loads at boot. */
export const nftProbes = (): StateProbe[] => [
  { program: 'nft', args: ['--stateless', 'list', 'table', 'inet', 'airlock'] },
  { program: 'systemctl', args: ['is-enabled', '--', NFT_UNIT] },
];

export interface NftPlan {
  next: TableModel;
  summary: string;
  sideEffects?: string[];
  warnings?: string[];
}
