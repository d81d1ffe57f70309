/**
 * What the reboot actions read of the host: this boot's id, its uptime, and the shutdown
 * systemd has scheduled, if any. systemd's `shutdown` asks logind to schedule it; logind keeps
 * it in /run/systemd/shutdown/scheduled (KEY=VALUE lines: USEC, WARN_WALL, MODE, UID, TTY,
 * WALL_MESSAGE C-escaped), which /run being a tmpfs clears at every boot.
 */
import type { Host } from '../../action.js';
import { clip } from '../../lib/text.js';

/** The kernel's id of this boot (systemd-nspawn gives each container boot its own). */
export const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';
export const SCHEDULE_FILE = '/run/systemd/shutdown/scheduled';
/** A boot id as the kernel prints it: a UUID. */
export const BOOT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The schedule file is a few short lines; more than this is not logind's. */
const MAX_SCHEDULE_BYTES = 4096;
/** What a preview shows of an existing schedule's message. */
const MAX_SHOWN_MESSAGE = 200;

export interface ScheduledShutdown {
  /** reboot, poweroff, halt, kexec, or whatever logind wrote (shown, never acted on). */
  mode: string;
  /** When, as an ISO time; null when the file names no readable time. */
  at: string | null;
  /** The message logged-in users were sent, as logind keeps it (C-escaped), clipped. */
  message: string | null;
}

export interface BootState {
  bootId: string | null;
  uptimeSeconds: number | null;
  scheduled: ScheduledShutdown | null;
}

/** Parses the schedule file; null when there is none or it holds no MODE (not a schedule). */
export function parseSchedule(text: string | null): ScheduledShutdown | null {
  if (text === null || text.length > MAX_SCHEDULE_BYTES) return null;
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) fields.set(line.slice(0, eq), line.slice(eq + 1));
  }
  const mode = fields.get('MODE');
  if (!mode || !/^[a-z-]{1,32}$/.test(mode)) return null;
  const usec = fields.get('USEC');
  const ms = usec && /^\d{1,20}$/.test(usec) ? Number(BigInt(usec) / 1000n) : NaN;
  const at = Number.isFinite(ms) && ms > 0 && ms < 8.64e15 ? new Date(ms).toISOString() : null;
  const message = fields.get('WALL_MESSAGE');
  return { mode, at, message: message ? clip(message, MAX_SHOWN_MESSAGE) : null };
}

export async function readBootState(host: Host): Promise<BootState> {
  const id = ((await host.readFile(BOOT_ID_FILE)) ?? '').trim();
  const up = Number(((await host.readFile('/proc/uptime')) ?? '').split(' ')[0]);
  return {
    bootId: BOOT_ID.test(id) ? id : null,
    uptimeSeconds: Number.isFinite(up) && up >= 0 ? Math.floor(up) : null,
    scheduled: parseSchedule(await host.readFile(SCHEDULE_FILE)),
  };
}

/** "a reboot at 2026-12-07T18:00:00.000Z (message: ...)", for a person. */
export function describeSchedule(s: ScheduledShutdown): string {
  return `a ${s.mode} at ${s.at ?? 'an unreadable time'}${s.message ? ` (message: ${s.message})` : ''}`;
}
