/**
 * The one read the offline planner makes through the daemon: before proposing to vacuum the
 * journal, how much the journal takes (JournalDiskUsage, a Low, non-sensitive read the
 * default policy approves by itself). A journal already under the proposed size drops the
 * vacuum step. The plan stands without the read: when it fails, the step stays and the notes
 * say the planner could not look.
 */
import type { HostContext, PlanStep, QueryRecord, QueryRunner } from '../contract.js';

const UNIT_BYTES: Record<string, number> = { B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** "24.0M" or "500M" in bytes, or null. */
export function bytesOf(size: string): number | null {
  const m = /^([0-9]+(?:\.[0-9]+)?)([BKMGT])$/.exec(size);
  return m ? Number(m[1]) * UNIT_BYTES[m[2]!]! : null;
}

/** The size journalctl --disk-usage reports ("... take up 24.0M in the file system."), or null. */
export function journalSize(output: readonly string[]): string | null {
  for (const line of output) {
    const m = /take up ([0-9]+(?:\.[0-9]+)?[BKMGT]) in the file system/.exec(line);
    if (m) return m[1]!;
  }
  return null;
}

function canRead(host: HostContext, name: string): boolean {
  const a = host.actions.find((x) => x.name === name);
  return a !== undefined && a.read_only && !a.sensitive && a.risk === 'low';
}

/** A query that gives up after `ms`, and never throws: a failed read is only a note. */
async function ask(query: QueryRunner, name: string, ms: number): ReturnType<QueryRunner> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      query(name, {}),
      new Promise<Awaited<ReturnType<QueryRunner>>>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, error: `no answer within ${ms} ms`, transaction_id: null }), ms);
      }),
    ]);
  } catch (e) {
    return { ok: false, error: (e as Error).message, transaction_id: null };
  } finally {
    clearTimeout(timer);
  }
}

export async function sharpenWithReads(steps: PlanStep[], host: HostContext, query: QueryRunner, wallClockMs: number): Promise<{ steps: PlanStep[]; notes: string[]; queries: QueryRecord[] }> {
  const vacuum = steps.find((s) => s.action_name === 'VacuumJournal' && typeof s.params.maxSize === 'string');
  if (vacuum === undefined || !canRead(host, 'JournalDiskUsage')) return { steps, notes: [], queries: [] };
  const r = await ask(query, 'JournalDiskUsage', Math.min(wallClockMs, 30_000));
  const queries: QueryRecord[] = [{ action_name: 'JournalDiskUsage', params: {}, transaction_id: r.transaction_id, ok: r.ok }];
  if (!r.ok) return { steps, notes: [`Could not read the journal's size (${r.error.slice(0, 200)}): VacuumJournal is proposed without it.`], queries };
  const size = journalSize(r.output);
  const limit = bytesOf(String(vacuum.params.maxSize));
  const bytes = size === null ? null : bytesOf(size);
  if (size === null || bytes === null || limit === null) return { steps, notes: ["The journal's size was not in JournalDiskUsage's output: VacuumJournal is proposed without it."], queries };
  // Read already: the JournalDiskUsage step would only show it again.
  const rest = steps.filter((s) => s.action_name !== 'JournalDiskUsage');
  if (bytes <= limit) return { steps: rest.filter((s) => s !== vacuum), notes: [`Read: the journal takes ${size}, already under ${vacuum.params.maxSize}; VacuumJournal is not proposed.`], queries };
  return { steps: rest, notes: [`Read: the journal takes ${size}; VacuumJournal shrinks its archived files to ${vacuum.params.maxSize}.`], queries };
}
