/**
 * The preview envelope as a schema, so a preview read back from the store (or received by a
 * client) is checked, not cast. Mirrors PreviewEnvelope in messages.ts; the type annotation
 * makes the compiler keep the two in step.
 */
import { z } from 'zod';
import { RISKS, ROLES } from './risk.js';
import type { CommandEntry, FileWriteEntry, MechanismEntry, PreviewEnvelope, ProposedChange } from './messages.js';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const octalMode = z.string().regex(/^[0-7]{4,6}$/);
const owner = z.strictObject({ uid: z.number().int().min(0), gid: z.number().int().min(0) }).nullable();
const count = z.number().int().min(0);
/** Bytes that are not valid UTF-8 (messages.ts NotUtf8): present only when there are some. */
const notUtf8 = { not_utf8: z.number().int().min(1).optional() };
const facts = z.strictObject({ bytes: count, sha256: hex64, ...notUtf8 });
const shownHunk = z.strictObject({ old_start: count, old_lines: count, new_start: count, new_lines: count, lines: z.array(z.string()) });
const shownDiff = z.strictObject({ removed: z.array(z.string()), added: z.array(z.string()), not_shown: count, hunks: z.array(shownHunk).optional() });
const newFile = { mode: octalMode, owner, parent: z.strictObject({ mode: octalMode, owner }).nullable() };

const commandEntry: z.ZodType<CommandEntry> = z.lazy(() =>
  z.strictObject({
    kind: z.literal('command'),
    program: z.string(),
    args: z.array(z.string()),
    ok_codes: z.array(z.number().int()).optional(),
    timeout_ms: z.number().int().min(0).optional(),
    resource: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    unprivileged: z.boolean().optional(),
    paths: z.array(z.string()).optional(),
    file: z.strictObject({ path: z.string(), create: z.strictObject({ mode: octalMode }).optional() }).optional(),
    expect: z.strictObject({ path: z.string(), mode: octalMode }).optional(),
    verdict: z.strictObject({ success: z.string(), tolerated: z.array(z.string()).optional() }).optional(),
    undo: commandEntry.optional(),
  }),
);

const fileWriteEntry: z.ZodType<FileWriteEntry> = z.union([
  z.strictObject({ kind: z.literal('fileWrite'), path: z.string(), ...newFile, binds: z.literal('content'), bytes: z.number().int().min(0), sha256: hex64, before: facts.nullable(), diff: shownDiff.nullable(), ...notUtf8 }),
  z.strictObject({ kind: z.literal('fileWrite'), path: z.string(), ...newFile, binds: z.literal('own_lines'), sha256: hex64, diff: shownDiff, ...notUtf8 }),
]);

const mechanismEntry: z.ZodType<MechanismEntry> = z.union([
  commandEntry,
  z.strictObject({ kind: z.literal('fileScan'), path: z.string() }),
  fileWriteEntry,
  z.strictObject({ kind: z.literal('filePatch'), path: z.string(), sha256: hex64, diff: shownDiff, ...notUtf8 }),
  z.strictObject({ kind: z.literal('fileDelete'), path: z.string(), before: facts.nullable() }),
]);

export const ProposedChangeSchema: z.ZodType<ProposedChange> = z.strictObject({ change: z.unknown(), mechanism: z.array(mechanismEntry), digest: hex64 });

const iso = z.iso.datetime({ offset: true });

export const PreviewEnvelopeSchema: z.ZodType<PreviewEnvelope> = z.strictObject({
  transaction_id: z.string().regex(/^tx_[0-9a-f]{24}$/),
  action_name: z.string(),
  params: z.record(z.string(), z.unknown()),
  request_hash: hex64,
  summary: z.string(),
  risk: z.enum(RISKS),
  min_role: z.enum(ROLES),
  current_state: z.unknown(),
  proposed_change: ProposedChangeSchema,
  side_effects: z.array(z.string()),
  reboot_required: z.boolean(),
  rollback_available: z.boolean(),
  warnings: z.array(z.string()),
  requested_by: z.string(),
  no_change: z.literal(true).optional(),
  unattended: z.literal(true).optional(),
  unmask: z.literal(true).optional(),
  from_proposal: z.string().regex(/^tx_[0-9a-f]{24}$/).optional(),
  created_at: iso,
  expires_at: iso,
  preview_digest: hex64,
});
