/**
 * What starting or stopping a unit does to other units, read before the change so that its
 * undo puts them back too (issue 27). A start also starts the units it pulls in that were not
 * running (Requires=, Wants=, BindsTo=, followed only through units that were not running:
 * systemd does not start again what a running unit wants) and stops the running units it
 * conflicts with (Conflicts= either way), with the units that stop with those. A stop also
 * stops every running unit that stops with it (Requires=, Requisite=, BindsTo=, PartOf=
 * pointing at it, followed through every unit: stopping an inactive unit still reaches them).
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import { isRunning, parseShow, type UnitState } from '../../lib/systemd.js';
import { unitRunning } from '../../lib/unit-probes.js';

/** Units read at most in one walk: a cascade wider than this is reported as partial, never followed further. */
export const MAX_CASCADE = 64;

const EDGE_PROPERTIES = ['Id', 'LoadState', 'ActiveState', 'CanStart', 'CanStop', 'Requires', 'Wants', 'BindsTo', 'Conflicts', 'ConflictedBy', 'RequiredBy', 'RequisiteOf', 'BoundBy', 'ConsistsOf'];
const START_EDGES = ['Requires', 'Wants', 'BindsTo'];
const STOP_EDGES = ['RequiredBy', 'RequisiteOf', 'BoundBy', 'ConsistsOf'];
/**
 * A unit name as systemd reports it (-.mount and dev-disk-by\x2dlabel-x.device included):
 * only such a name goes into an undo's argv or a probe's, always after `--`. systemd's own
 * names always match; anything else is left out, and the preview says so.
 */
const UNIT_NAME = /^[A-Za-z0-9:_.\\@-]{1,250}\.(service|socket|timer|target|path|mount|automount|swap|slice|scope|device)$/;
export const isUnitName = (name: string) => UNIT_NAME.test(name);

interface Node {
  id: string;
  load: string;
  running: boolean;
  canStart: boolean;
  canStop: boolean;
  edges: Map<string, string>;
}

async function readNode(host: Host, unit: string): Promise<Node> {
  const r = await host.run('systemctl', ['show', '--no-pager', '-p', EDGE_PROPERTIES.join(','), '--', unit]);
  if (r.code !== 0) throw new AirlockError('execution', 'unit_unreadable', `systemctl could not read the dependencies of ${unit} (exit status ${r.code})`);
  const kv = parseShow(r.stdout);
  const id = kv.get('Id') ?? '';
  return { id: isUnitName(id) ? id : unit, load: kv.get('LoadState') ?? '', running: isRunning({ active: kv.get('ActiveState') ?? '' } as UnitState), canStart: kv.get('CanStart') === 'yes', canStop: kv.get('CanStop') === 'yes', edges: kv };
}

const neighbours = (n: Node, edges: string[]) => edges.flatMap((e) => (n.edges.get(e) ?? '').split(/\s+/)).filter(Boolean);

/** The units reached from `root` along `edges`, each read once; a unit for which `through` is false is read but not gone past. */
async function walk(host: Host, root: string, edges: string[], through: (n: Node) => boolean): Promise<{ root: Node; nodes: Node[]; odd: string[]; partial: boolean }> {
  const seen = new Set([root]);
  const top = await readNode(host, root);
  const queue = neighbours(top, edges);
  const nodes: Node[] = [];
  const odd: string[] = [];
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    if (!isUnitName(name)) {
      odd.push(name);
      continue;
    }
    if (nodes.length >= MAX_CASCADE) return { root: top, nodes, odd, partial: true };
    const n = await readNode(host, name);
    nodes.push(n);
    if (through(n)) queue.push(...neighbours(n, edges));
  }
  return { root: top, nodes, odd, partial: false };
}

/** What a stop of a unit also stops: the running units its undo starts again. */
export interface StopCascade {
  /** Running units that stop with it, which `systemctl start` can start again. */
  stopped: string[];
  /** Running units that stop with it that nothing can start again by hand (RefuseManualStart=, a scope) or whose names were odd. */
  lost: string[];
  partial: boolean;
}

export async function readStopCascade(host: Host, unit: string): Promise<StopCascade> {
  const w = await walk(host, unit, STOP_EDGES, () => true);
  const running = w.nodes.filter((n) => n.running);
  return { stopped: running.filter((n) => n.canStart).map((n) => n.id), lost: [...running.filter((n) => !n.canStart).map((n) => n.id), ...w.odd], partial: w.partial };
}

/** What a start of a unit also changes: the units its undo stops, and the ones it starts again. */
export interface StartCascade {
  /** Units that were not running which the start pulls in, and `systemctl stop` can stop. */
  pulledIn: string[];
  /** Running units the start stops (they conflict with it or with a unit it pulls in, or stop with one that does). */
  stopped: string[];
  /** Units it changes that an undo cannot put back (RefuseManualStop=, RefuseManualStart=, odd names). */
  lost: string[];
  partial: boolean;
}

export async function readStartCascade(host: Host, unit: string): Promise<StartCascade> {
  const pulled = await walk(host, unit, START_EDGES, (n) => !n.running && n.load === 'loaded');
  // A unit that did not load is not started (a missing Wants= is ignored, a missing Requires= fails the start).
  const started = pulled.nodes.filter((n) => !n.running && n.load === 'loaded');
  const conflicting = new Set<string>();
  for (const n of [pulled.root, ...started]) for (const c of neighbours(n, ['Conflicts', 'ConflictedBy'])) conflicting.add(c);
  const stopped = new Map<string, boolean>();
  const lost = [...started.filter((n) => !n.canStop).map((n) => n.id), ...pulled.odd];
  let partial = pulled.partial;
  for (const c of conflicting) {
    if (!isUnitName(c)) {
      lost.push(c);
      continue;
    }
    const n = await readNode(host, c);
    if (!n.running) continue;
    stopped.set(n.id, n.canStart);
    const more = await readStopCascade(host, n.id);
    for (const s of more.stopped) stopped.set(s, true);
    lost.push(...more.lost);
    partial ||= more.partial;
  }
  const back = [...stopped].filter(([, canStart]) => canStart).map(([u]) => u);
  lost.push(...[...stopped].filter(([, canStart]) => !canStart).map(([u]) => u));
  return { pulledIn: started.filter((n) => n.canStop).map((n) => n.id), stopped: back, lost: [...new Set(lost)], partial };
}

/** `systemctl VERB... -- UNIT...`. */
const systemctlUnits = (verbs: string[], units: string[]): CommandStep => command('systemctl', [...verbs, '--', ...units]);

/**
 * The undo of a start: stops exactly the units it started and nothing that depends on them.
 * An ordinary stop would also stop the running units that require one of them (a oneshot a
 * running service requires is inactive again once it ran, yet stopping it stops that service).
 */
export const stopOnly = (units: string[]): CommandStep => systemctlUnits(['stop', '--job-mode=ignore-dependencies'], units);

/**
 * The steps of a start or restart: the command, undone by stopping what was not running
 * before it (nothing when the unit ran and it pulls nothing in: a restart is then an event
 * that leaves the state it found). When it stops running units, a read of them comes first,
 * carrying the undo that starts them again: undos run last first, so the units the change
 * started are stopped before the ones it stopped are started (they conflict).
 */
export function startSteps(verb: 'start' | 'restart', unit: string, wasRunning: boolean, c: StartCascade): CommandStep[] {
  const stopAfter = [...(wasRunning ? [] : [unit]), ...c.pulledIn];
  const main: CommandStep = { ...systemctlUnits([verb], [unit]), ...(stopAfter.length ? { undo: stopOnly(stopAfter) } : { noUndo: 'leaves_state' as const }) };
  if (c.stopped.length === 0) return [main];
  return [{ ...command('systemctl', ['is-active', '--', ...c.stopped], { okCodes: [0, 3] }), undo: systemctlUnits(['start'], c.stopped) }, main];
}

/** The undo of a stop: the unit started again with the running units that stopped with it. */
export const startAgain = (unit: string, c: StopCascade): CommandStep => systemctlUnits(['start'], [unit, ...c.stopped]);

/** What a start's probes read: whether the unit and every unit the cascade touches runs. */
export const startProbes = (unit: string, c: StartCascade) => [...new Set([unit, ...c.pulledIn, ...c.stopped, ...c.lost.filter(isUnitName)])].map(unitRunning);
export const stopProbes = (unit: string, c: StopCascade) => [...new Set([unit, ...c.stopped, ...c.lost.filter(isUnitName)])].map(unitRunning);

/** "stops X (and Y, Z, started with it); starts again A, B (which it stops)": what an undo of a start does. */
export function startUndoText(unit: string, wasRunning: boolean, c: StartCascade): string {
  const stops = [...(wasRunning ? [] : [unit]), ...c.pulledIn];
  const parts = [
    ...(stops.length ? [`stops ${stops.join(', ')}`] : []),
    ...(c.stopped.length ? [`starts again ${c.stopped.join(', ')}, which it stops`] : []),
  ];
  return parts.length ? `an undo ${parts.join('; ')}` : `${unit} keeps running and nothing else changes: there is nothing to undo`;
}

/** Warnings for what an undo cannot put back, or did not look at. */
export function cascadeWarnings(c: { lost: string[]; partial: boolean }): string[] {
  return [
    ...(c.lost.length ? [`an undo cannot put these back as they were: ${c.lost.join(', ')}`] : []),
    ...(c.partial ? [`more than ${MAX_CASCADE} units are involved: only the first ${MAX_CASCADE} were read, and an undo puts back only those`] : []),
  ];
}
