/** The sshd options Airlock sets, the values each takes, and how a value is written and shown. */
import { z } from 'zod';
import { LOGIN_NAME, token } from '../../params.js';

type OptionSpec =
  | { kind: 'word'; values: readonly string[] }
  | { kind: 'number'; min: number; max: number; unit?: string }
  | { kind: 'names'; of: 'user' | 'group' };

const YES_NO = { kind: 'word', values: ['yes', 'no'] } as const;
export const MAX_ALLOW_NAMES = 32;

/** The options SetSshdOption sets and the values each takes (spelled as in sshd_config). */
export const SSHD_OPTIONS = {
  PasswordAuthentication: YES_NO,
  PermitRootLogin: { kind: 'word', values: ['yes', 'no', 'prohibit-password', 'forced-commands-only'] },
  PubkeyAuthentication: YES_NO,
  KbdInteractiveAuthentication: YES_NO,
  X11Forwarding: YES_NO,
  AllowTcpForwarding: { kind: 'word', values: ['yes', 'no', 'local', 'remote'] },
  AllowAgentForwarding: YES_NO,
  MaxAuthTries: { kind: 'number', min: 1, max: 10 },
  ClientAliveInterval: { kind: 'number', min: 0, max: 3600, unit: 'seconds' },
  ClientAliveCountMax: { kind: 'number', min: 0, max: 10 },
  LoginGraceTime: { kind: 'number', min: 10, max: 600, unit: 'seconds' },
  MaxSessions: { kind: 'number', min: 1, max: 100 },
  AllowUsers: { kind: 'names', of: 'user' },
  AllowGroups: { kind: 'names', of: 'group' },
} as const satisfies Record<string, OptionSpec>;

export type SshdOption = keyof typeof SSHD_OPTIONS;
export const OPTION_NAMES = Object.keys(SSHD_OPTIONS) as [SshdOption, ...SshdOption[]];
export const sshdOption = z.enum(OPTION_NAMES);
const specOf = (o: SshdOption): OptionSpec => SSHD_OPTIONS[o];
/** Options sshd adds up over every line instead of keeping the first. */
export const isList = (o: SshdOption) => specOf(o).kind === 'names';

const accountName = token(LOGIN_NAME, 'user or group name', 32);
const WORDS = [...new Set(Object.values(SSHD_OPTIONS).flatMap((s) => ('values' in s ? s.values : [])))] as [string, ...string[]];
export const optionValue = z.union([
  z.enum(WORDS),
  z.number().int().min(0).max(3600),
  z.array(accountName).min(1, 'name at least one').max(MAX_ALLOW_NAMES, `at most ${MAX_ALLOW_NAMES} names`),
]);
export type OptionValue = z.infer<typeof optionValue>;

/** Why `value` is not one `option` takes, or null. */
export function valueProblem(option: SshdOption, value: OptionValue): string | null {
  const spec = specOf(option);
  if (spec.kind === 'word') return typeof value === 'string' && spec.values.includes(value) ? null : `${option} takes one of: ${spec.values.join(', ')}`;
  if (spec.kind === 'number') {
    const ok = typeof value === 'number' && value >= spec.min && value <= spec.max;
    return ok ? null : `${option} takes a whole number from ${spec.min} to ${spec.max}${spec.unit ? ` (${spec.unit})` : ''}`;
  }
  if (!Array.isArray(value)) return `${option} takes a list of ${spec.of} names`;
  return new Set(value).size === value.length ? null : `name each ${spec.of} once`;
}

/** The drop-in line: `PasswordAuthentication no`, `AllowUsers alice bob`. */
export const optionLine = (option: SshdOption, value: OptionValue) => `${option} ${Array.isArray(value) ? value.join(' ') : String(value)}`;

/** Values as `sshd -T` prints them: prohibit-password is shown by its older name. */
export function effectiveWords(option: SshdOption, value: OptionValue): string[] {
  if (Array.isArray(value)) return value;
  if (option === 'PermitRootLogin' && value === 'prohibit-password') return ['without-password'];
  return [String(value)];
}
