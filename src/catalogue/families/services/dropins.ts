/**
 * Airlock's own drop-ins, /etc/systemd/system/UNIT.d/airlock-*.conf: the only files the
 * unit configuration actions of the services family write or delete. What they hold,
 * what a drop-in action reads first (the unit, the effective values of its keys, and
 * the later drop-ins that would defeat it), its refusals, and the steps that write it
 * between two reads of the values and reload systemd.
 */
import { posix } from 'node:path';
import { AirlockError } from '../../../protocol/errors.js';
import { type Host, unchanged, type Unchanged } from '../../action.js';
import { fileWrite, type Step } from '../../mechanism.js';
import { serviceUnit } from '../../params.js';
import { readUnit, refuseMissing, refuseProtected, type UnitState } from '../../lib/systemd.js';
import { daemonReload, showProperties, showValues, unitsNeedingReload } from './properties.js';

/** A .service unit: only services have the [Service] section the drop-ins here write. */
export const configurableService = serviceUnit.refine((u) => u.endsWith('.service'), 'only .service units take restart policies and resource limits');

export const UNIT_DIR = '/etc/systemd/system';
export const dropInDir = (unit: string) => `${UNIT_DIR}/${unit}.d`;
/** Airlock's own drop-ins: the only ones any action here writes or deletes. */
export const OWN_DROPIN = /^airlock-[a-z0-9-]+\.conf$/;
export const OWN_DROPINS_GLOB = `${UNIT_DIR}/*.d/airlock-*.conf`;

/** Each drop-in key and the `systemctl show` property that reports its effective value. */
export const SHOWN_AS: Record<string, string> = {
  Restart: 'Restart',
  RestartSec: 'RestartUSec',
  MemoryMax: 'MemoryMax',
  CPUQuota: 'CPUQuotaPerSecUSec',
  TasksMax: 'TasksMax',
  LimitNOFILE: 'LimitNOFILE',
};
export const propertiesOf = (keys: string[]) => [...new Set(keys.map((k) => SHOWN_AS[k] ?? k))];

/** The content of an Airlock drop-in: a header saying whose it is, then [Service] KEY=VALUE lines. */
export function dropInText(settings: Array<[string, string]>): string {
  return `# Written by Airlock; ResetServiceOverrides removes it.\n[Service]\n${settings.map(([k, v]) => `${k}=${v}\n`).join('')}`;
}

/** The keys a unit file or drop-in assigns in one section (comments, other sections ignored). */
export function sectionKeys(text: string, section: string): string[] {
  const keys: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const head = /^\[(.+)\]$/.exec(line);
    if (head) current = head[1]!;
    else if (current === section && /^[A-Za-z][A-Za-z0-9]*\s*=/.test(line)) keys.push(line.slice(0, line.indexOf('=')).trim());
  }
  return keys;
}

/** What a drop-in action reads: the unit, the effective values of its keys, its own file, and what would defeat it. */
export interface DropInTarget extends UnitState {
  type: string;
  /** Effective values now, by `systemctl show` property. */
  values: Record<string, string>;
  file: string;
  /** The drop-in's content now; null when absent. */
  existing: string | null;
  /** Drop-ins systemd applies after this one that set one of its keys in [Service]: they would win. */
  overriddenBy: string[];
  pendingReload: string[];
}

export async function readDropInTarget(host: Host, unit: string, name: string, keys: string[]): Promise<DropInTarget> {
  const u = await readUnit(host, unit);
  const values = await showProperties(host, unit, ['Type', 'DropInPaths', ...propertiesOf(keys)]);
  const file = `${dropInDir(unit)}/${name}`;
  const overriddenBy: string[] = [];
  // systemd applies drop-ins in the order of their file names, whatever their directory: later ones win.
  for (const path of values.DropInPaths!.split(/\s+/).filter(Boolean)) {
    if (path === file || posix.basename(path) <= name) continue;
    const text = await host.readFile(path).catch(() => null);
    if (text !== null && sectionKeys(text, 'Service').some((k) => keys.includes(k))) overriddenBy.push(path);
  }
  const { Type, DropInPaths: _paths, ...effective } = values;
  return { ...u, type: Type!, values: effective, file, existing: await host.readFile(file), overriddenBy, pendingReload: await unitsNeedingReload(host) };
}

/** What a drop-in can be written for: an existing, unmasked, persistent unit named by its real name. */
export function refuseUnconfigurable(unit: string, cur: DropInTarget): void {
  refuseProtected('reload', unit, cur); // rescue shells and aliases; configuring takes nothing down
  refuseMissing(unit, cur);
  if (cur.load === 'masked' || cur.unitFile.startsWith('masked')) {
    throw new AirlockError('conflict', 'unit_masked', `${unit} is masked: a drop-in for it would have no effect`, 'unmask it first with UnmaskService');
  }
  if (cur.unitFile === 'transient') throw new AirlockError('conflict', 'transient_unit', `${unit} is a transient unit (created at run time, gone when it stops); it has no unit file to extend`);
  if (cur.overriddenBy.length) {
    throw new AirlockError('conflict', 'overridden', `${cur.overriddenBy.join(', ')} ${cur.overriddenBy.length === 1 ? 'is' : 'are'} applied after ${cur.file} and set${cur.overriddenBy.length === 1 ? 's' : ''} the same keys, so this change would have no effect`, 'a person changes that drop-in; ShowServiceOverrides shows it');
  }
}

/** No change when the drop-in already holds exactly this content. */
export function unchangedDropIn(unit: string, cur: DropInTarget, content: string): Unchanged | undefined {
  if (cur.existing === content) return unchanged(`${cur.file} already holds exactly these settings for ${unit}`);
  return undefined;
}

/** "Restart: on-failure -> always" pairs for the preview, by drop-in key. */
export function fromTo(cur: DropInTarget, settings: Array<[string, string]>) {
  return Object.fromEntries(settings.map(([k, v]) => [k, { now: `${SHOWN_AS[k]}=${cur.values[SHOWN_AS[k]!] || 'unset'}`, to: v }]));
}

/**
 * Drop-in file steps between two reads of the values they change, then a reload. The
 * first read (the values before, in the output) carries the rollback's reload: undos run
 * in reverse order, so when a later step fails the files are restored first and systemd
 * then reloads them. The last read shows what systemd applies now.
 */
export function reloadedChange(unit: string, props: string[], fileSteps: Step[]): Step[] {
  return [{ ...showValues(unit, props), undo: daemonReload() }, ...fileSteps, { ...daemonReload(), noUndo: 'undone_earlier' }, { ...showValues(unit, props), noUndo: 'changes_nothing' }];
}

export const writeDropIn = (path: string, content: string) => fileWrite(path, content, { mode: 0o644, parent: { mode: 0o755 } });
