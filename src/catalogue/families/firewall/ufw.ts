/** ufw: rules allowed, denied and deleted with the ufw command (ufw keeps them in /etc/ufw/user*.rules itself); offered only where ufw is installed. */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, port } from '../../params.js';
import { lockOutError } from './lockout.js';
import { protocol } from './params.js';
import { readUfw, refuseNoUfw, refuseUfwLockout, showUfw, UFW_VERBS, ufwVerbFor } from './ufw-state.js';
import { exact } from '../../rollback.js';
import { numberUndo, specUndos, ufwProbes } from './ufw-undo.js';

function ufwRuleAction(verb: 'allow' | 'deny') {
  return action({
    name: verb === 'allow' ? 'UfwAllow' : 'UfwDeny',
    family: 'firewall',
    description:
      verb === 'allow'
        ? 'Add a ufw rule that allows incoming connections to a TCP or UDP port (IPv4 and IPv6).'
        : 'Add a ufw rule that denies incoming connections to a TCP or UDP port (IPv4 and IPv6).',
    risk: 'high',
    // ufw deletes the rule it added, or (a rule for the port changed in place) sets its verb back, in place.
    rollback: exact(ufwProbes),
    readOnly: false,
    runsPrograms: false,
    params: params({ port, protocol }),
    files: [],
    example: { port: verb === 'allow' ? 443 : 3306, protocol: 'tcp' as const },
    current: (_p, host) => readUfw(host),
    shown: showUfw,
    check: ({ port: p, protocol: proto }, cur) => {
      refuseNoUfw(cur);
      const spec = `${p}/${proto}`;
      if (ufwVerbFor(cur, spec) === verb) return unchanged(`ufw already has \`${verb} ${spec}\``);
      if (verb === 'deny' && proto === 'tcp' && cur.sockets.sshPorts.includes(p) && cur.active) {
        throw lockOutError([`ufw is active and \`deny ${spec}\` blocks SSH on port ${p}`], 'deny SSH only from given sources, with DenySource or fail2ban, never the port as a whole');
      }
    },
    preview: ({ port: p, protocol: proto }, cur) => {
      const spec = `${p}/${proto}`;
      const prior = ufwVerbFor(cur, spec);
      const warnings: string[] = [];
      if (!cur.active) warnings.push('ufw is inactive: the rule is stored and takes effect when a person enables ufw');
      if (verb === 'deny' && proto === 'tcp' && cur.sockets.sshPorts.includes(p)) warnings.push(`port ${p} is SSH: once ufw is enabled this rule blocks every SSH login`);
      return {
        summary: `ufw ${verb} ${spec}`,
        change: prior ? { replaces: `ufw ${prior} ${spec}`, with: `ufw ${verb} ${spec}` } : { adds: `ufw ${verb} ${spec}`, families: 'IPv4 and IPv6' },
        sideEffects: [cur.active ? `applied at once; ufw stores it in /etc/ufw/user.rules and user6.rules` : 'ufw stores it in /etc/ufw/user.rules and user6.rules'],
        warnings,
      };
    },
    mechanism: ({ port: p, protocol: proto }, cur) => {
      const spec = `${p}/${proto}`;
      const prior = ufwVerbFor(cur, spec);
      // ufw takes no `--`; its operands are built from a port number and a fixed word.
      return [command('ufw', [verb, spec], { undo: prior ? command('ufw', [prior, spec]) : command('ufw', ['delete', verb, spec]) })];
    },
  });
}

export const ufwStatus = action({
  name: 'UfwStatus',
  family: 'firewall',
  description: "Show whether ufw is active, its default policies and its rules (numbered while active, as stored while inactive).",
  risk: 'low',
  readOnly: true,
  // Sensitive: ufw's rules with their comments.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readUfw(host),
  shown: showUfw,
  check: (_p, cur) => refuseNoUfw(cur),
  preview: (_p, cur) => ({ summary: `ufw status (${cur.active ? 'active' : 'inactive'}, ${cur.added.length} rules)`, change: null }),
  mechanism: (_p, cur) => [command('ufw', ['status', 'verbose']), command('ufw', cur.active ? ['status', 'numbered'] : ['show', 'added'])],
});

export const ufwAllow = ufwRuleAction('allow');
export const ufwDeny = ufwRuleAction('deny');

export const ufwDelete = action({
  name: 'UfwDelete',
  family: 'firewall',
  description: 'Delete one ufw rule, by its number in `ufw status numbered` (ufw active) or by its spec (verb, port and protocol; IPv4 and IPv6).',
  risk: 'high',
  readOnly: false,
  // The rule inserted again where it was, in each IP family (ufw-undo.ts).
  rollback: exact(ufwProbes),
  runsPrograms: false,
  params: z.union([params({ number: z.number().int().min(1).max(99_999) }), params({ rule: z.enum(UFW_VERBS), port, protocol })]),
  files: [],
  example: { rule: 'allow', port: 443, protocol: 'tcp' },
  current: (_p, host) => readUfw(host),
  shown: showUfw,
  check: (p, cur) => {
    refuseNoUfw(cur);
    if ('number' in p) {
      if (!cur.active) throw new AirlockError('conflict', 'ufw_inactive', 'ufw is inactive, so its rules have no numbers to show', 'name the rule instead: {"rule": "allow", "port": 443, "protocol": "tcp"}');
      if (!cur.numbered.some((r) => r.number === p.number)) throw new AirlockError('validation', 'no_such_rule', `ufw has no rule number ${p.number}`, 'UfwStatus lists the numbered rules');
      refuseUfwLockout(cur, cur.numbered.filter((r) => r.number !== p.number));
      numberUndo(cur, p.number);
    } else {
      const spec = `${p.port}/${p.protocol}`;
      if (ufwVerbFor(cur, spec) !== p.rule) throw new AirlockError('validation', 'no_such_rule', `ufw has no rule \`${p.rule} ${spec}\``, 'UfwStatus lists the rules');
      const row = new RegExp(`^${spec.replace('/', '\\/')}( \\(v6\\))?\\s+${p.rule.toUpperCase()}\\b`);
      refuseUfwLockout(cur, cur.numbered.filter((r) => !row.test(r.text)));
    }
  },
  preview: (p, cur) => {
    const sideEffects = [cur.active ? 'takes effect at once' : 'ufw is inactive: only the stored rule goes'];
    if ('number' in p) {
      const row = cur.numbered.find((r) => r.number === p.number);
      return { summary: `Delete ufw rule ${p.number}`, change: { deletes: `[${p.number}] ${row?.text ?? '?'}`, note: 'only this row: the rule of the other IP family, if any, stays' }, sideEffects };
    }
    return { summary: `Delete ufw rule ${p.rule} ${p.port}/${p.protocol}`, change: { deletes: `ufw ${p.rule} ${p.port}/${p.protocol}`, families: 'IPv4 and IPv6' }, sideEffects };
  },
  mechanism: (p, cur) => {
    // --force skips ufw's "Proceed with operation (y|n)?" question for a numbered delete.
    if ('number' in p) return [command('ufw', ['--force', 'delete', String(p.number)], { undo: numberUndo(cur, p.number) })];
    // Two undos (IPv4 then IPv6): the second is carried by a read before the delete, since undos run last first.
    const [first, second] = specUndos(cur, p.rule, p.port, p.protocol);
    return [...(second ? [command('ufw', ['show', 'added'], { undo: second })] : []), command('ufw', ['delete', p.rule, `${p.port}/${p.protocol}`], { undo: first! })];
  },
});
