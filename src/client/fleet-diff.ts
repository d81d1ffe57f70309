/**
 * What differs between the hosts of a fleet plan, for the person who approves them all with one
 * passkey assertion (`airlock fleet approve`): each host's proposed change is read as lines (the
 * action, its risk, what changes and how, as `airlock show` words them), the most common set of
 * lines is the fleet's usual change, and every host whose lines are not that set is listed with
 * the lines it lacks and the lines it has more. A person then reads one change and the exceptions,
 * rather than N changes looking for the one that is not like the others.
 */
import type { PreviewEnvelope } from '../protocol/messages.js';
import { escapeText } from '../protocol/escape-text.js';
import { changeLines, stepLine } from './preview-plan.js';

const t = (s: unknown) => escapeText(String(s), 'line');

/** Colour codes are paint, not content: two hosts printed on different terminals compare equal. */
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').trim();

/**
 * A preview's change as comparable lines: the action and risk, what changes (the action's own
 * statement) and how (one line per mechanism step); a plan's, step by step. Nothing that is
 * naturally per host (transaction id, requester, deadline, digests) is in them.
 */
export function changeOf(p: PreviewEnvelope): string[] {
  // The action name and risk come from the host as it sent them: escaped like every other host text.
  const head = `${t(p.action_name)}, ${t(p.risk)} risk`;
  if (p.plan) {
    return [head, ...p.plan.steps.flatMap((s) => [`step ${s.step}: ${t(s.action_name)}, ${t(s.risk)} risk`, ...(s.proposed_change ? [...changeLines(s.proposed_change.change), ...s.proposed_change.mechanism.map((m) => stepLine(m, false))] : [`computed after step ${s.computed_after}`])])].map(plain);
  }
  const pc = p.proposed_change;
  return [head, ...(p.no_change ? ['no change'] : []), ...changeLines(pc.change), ...pc.mechanism.map((m) => stepLine(m, false))].flatMap((l) => l.split('\n')).map(plain);
}

export interface HostChange {
  host: string;
  lines: string[];
}

export interface HostDifference {
  host: string;
  /** Lines of the usual change this host's change does not have. */
  missing: string[];
  /** Lines this host's change has that the usual one does not. */
  extra: string[];
}

export interface FleetDifferences {
  /** The most common change (on a tie, that of the first host in the order given). */
  usual: string[];
  /** The hosts whose change is the usual one. */
  same: string[];
  /** Every other host, in the order given, with how its change differs. */
  differ: HostDifference[];
}

const keyOf = (lines: readonly string[]) => JSON.stringify(lines);

/** The usual change of the hosts and each host that differs from it. */
export function fleetDifferences(changes: readonly HostChange[]): FleetDifferences {
  const counts = new Map<string, number>();
  for (const c of changes) counts.set(keyOf(c.lines), (counts.get(keyOf(c.lines)) ?? 0) + 1);
  let usualKey = '';
  let best = 0;
  // In the order given, so a tie goes to the first host the person named.
  for (const c of changes) {
    const n = counts.get(keyOf(c.lines))!;
    if (n > best) (best = n), (usualKey = keyOf(c.lines));
  }
  const usual = changes.find((c) => keyOf(c.lines) === usualKey)?.lines ?? [];
  const same: string[] = [];
  const differ: HostDifference[] = [];
  for (const c of changes) {
    if (keyOf(c.lines) === usualKey) {
      same.push(c.host);
      continue;
    }
    const theirs = new Set(c.lines);
    const ours = new Set(usual);
    differ.push({ host: c.host, missing: usual.filter((l) => !theirs.has(l)), extra: c.lines.filter((l) => !ours.has(l)) });
  }
  return { usual, same, differ };
}
