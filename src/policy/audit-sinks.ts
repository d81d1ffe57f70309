/**
 * The [audit] section of the policy: where signed tree heads go besides the local
 * append-only file (always on), and how often one is signed when nothing urgent happened.
 *
 *   [audit]
 *   checkpoint_interval_seconds = 60
 *   syslog = "tls://logs.example.org:6514"        # or tcp://host:port
 *   syslog_ca = "/etc/airlock/syslog-ca.pem"       # tls:// only; default: the system's CAs
 *   witnesses = [{ url = "https://witness.example.org/", key = "<witness vkey>" }]
 *   postgres = "postgres://airlock_host@db.example.org/audit"
 *
 * Validated here, so `airlock policy check` and the daemon read it the same way.
 */
import { z } from 'zod';
import { parseVkey, SIG_COSIGNATURE_V1 } from '../audit/note.js';

export interface SyslogTarget {
  protocol: 'tcp' | 'tls';
  host: string;
  port: number;
}

export interface WitnessSetting {
  url: string;
  /** The witness's vkey as written, and what it names. */
  key: string;
  name: string;
  publicRaw: Buffer;
}

export interface AuditSettings {
  checkpointIntervalSeconds: number;
  syslog?: SyslogTarget;
  syslogCa?: string;
  witnesses: WitnessSetting[];
  postgres?: string;
}

export const DEFAULT_CHECKPOINT_INTERVAL_SECONDS = 60;
/** Witnesses one host submits to: each is one HTTP request per head. */
export const MAX_WITNESSES = 8;

const SYSLOG = /^(tcp|tls):\/\/([A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\]):([1-9][0-9]{0,4})$/;
const ABSOLUTE_PATH = /^\/[^\u0000-\u001f]{0,4095}$/;

export const AuditSchema = z
  .strictObject({
    checkpoint_interval_seconds: z.number().int().min(1).max(86_400).default(DEFAULT_CHECKPOINT_INTERVAL_SECONDS),
    syslog: z
      .string()
      .regex(SYSLOG, 'syslog is "tcp://HOST:PORT" or "tls://HOST:PORT"')
      .refine((s) => Number(SYSLOG.exec(s)?.[3] ?? 0) <= 65_535, 'a port is at most 65535')
      .optional(),
    syslog_ca: z.string().regex(ABSOLUTE_PATH, 'syslog_ca is an absolute path').optional(),
    witnesses: z
      .array(z.strictObject({ url: z.url({ protocol: /^https?$/ }).max(2048), key: z.string().max(512) }))
      .max(MAX_WITNESSES)
      .default([]),
    postgres: z.string().max(2048).optional(),
  })
  .default({ checkpoint_interval_seconds: DEFAULT_CHECKPOINT_INTERVAL_SECONDS, witnesses: [] });

/** The section's meaning, or a sentence saying what is wrong (the caller adds where). */
export function auditSettings(a: z.infer<typeof AuditSchema>): AuditSettings | string {
  const out: AuditSettings = { checkpointIntervalSeconds: a.checkpoint_interval_seconds, witnesses: [] };
  if (a.syslog) {
    const m = SYSLOG.exec(a.syslog)!;
    out.syslog = { protocol: m[1] as 'tcp' | 'tls', host: m[2]!.replace(/^\[|\]$/g, ''), port: Number(m[3]) };
  }
  if (a.syslog_ca) {
    if (out.syslog?.protocol !== 'tls') return 'syslog_ca goes with a syslog = "tls://..." collector';
    out.syslogCa = a.syslog_ca;
  }
  const urls = new Set<string>();
  for (const w of a.witnesses) {
    if (urls.has(w.url)) return `the witness ${w.url} is listed twice`;
    urls.add(w.url);
    try {
      const v = parseVkey(w.key, [SIG_COSIGNATURE_V1]);
      out.witnesses.push({ url: w.url, key: w.key, name: v.name, publicRaw: v.publicRaw });
    } catch (e) {
      return `witness ${w.url}: ${(e as Error).message} (a witness key is the vkey \`airlock witness key\` prints)`;
    }
  }
  if (a.postgres !== undefined) {
    let u: URL;
    try {
      u = new URL(a.postgres);
    } catch {
      return 'postgres is a URL: "postgres://USER@HOST[:PORT]/DATABASE"';
    }
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return 'postgres is a postgres:// URL';
    if (!u.hostname) return 'postgres names the server: "postgres://USER@HOST/DATABASE" (the table belongs on another machine)';
    // The policy file is readable by whoever audits it; a password goes in root's ~/.pgpass (0600), which pg reads.
    if (u.password) return "postgres must not hold a password: put it in root's ~/.pgpass (mode 0600) instead";
    out.postgres = a.postgres;
  }
  return out;
}

/** One line per sink for `airlock policy check`. */
export function explainAudit(a: AuditSettings): string[] {
  const lines = [`checkpoints: signed tree heads go to the local append-only file, soon after each approval and outcome, and every ${a.checkpointIntervalSeconds} s when the log grew`];
  if (a.syslog) lines.push(`checkpoints: also to the syslog collector ${a.syslog.protocol}://${a.syslog.host}:${a.syslog.port}${a.syslog.protocol === 'tls' ? `, its certificate checked against ${a.syslogCa ?? "the system's CAs"}` : ' (plain TCP: anyone in the path can read or drop them; tls:// is better)'}`);
  for (const w of a.witnesses) lines.push(`checkpoints: cosigned by the witness ${w.name} at ${w.url}`);
  if (a.postgres) lines.push(`checkpoints: also inserted into airlock_tree_heads at ${a.postgres}`);
  if (!a.syslog && a.witnesses.length === 0 && !a.postgres) lines.push('checkpoints: no copy leaves the host: a person who takes it could cut the log and its checkpoint file alike ([audit] syslog, witnesses, postgres)');
  return lines;
}
