/**
 * A catalogue-wide check of the trusted-path declarations, run on every mechanism the
 * scenarios really build: an absolute path the agent passed as a parameter and a program
 * then gets in its argv must be declared on that step (CommandStep.paths, .file or
 * .expect), so that the daemon checks it at preview and right before the program runs.
 * A step run as nobody is exempt (it can reach only what any user can), and so are the
 * parameters below, which programs record rather than open.
 */
import { posix } from 'node:path';

/** Absolute paths that are data to the program given them: a login shell stored in /etc/passwd, a kernel audit rule. */
export const PATHS_AS_DATA: Record<string, string[]> = {
  CreateUser: ['shell'],
  SetUserShell: ['shell'],
  // auditctl hands the path to the kernel as a watch rule; no root program opens it (the action refuses links on it itself).
  AddAuditWatch: ['path'],
};

export interface DescribedStep {
  kind: string;
  program?: string;
  args?: string[];
  paths?: string[];
  file?: { path: string };
  expect?: { path: string };
  unprivileged?: boolean;
}

/** Whether a declared entry covers `path`: the path itself, or DIR/* for an entry of DIR (lib/trusted-path.ts). */
const covers = (declared: string, path: string) => declared === path || (declared.endsWith('/*') && posix.dirname(path) === (declared.slice(0, -2) || '/'));

/** The agent's absolute-path parameters this step gets by name without declaring them (empty when all is well). */
export function undeclaredPaths(action: string, params: Record<string, unknown>, step: DescribedStep): string[] {
  if (step.kind !== 'command' || step.unprivileged) return [];
  const named = Object.entries(params)
    .filter(([k]) => !(PATHS_AS_DATA[action] ?? []).includes(k))
    .flatMap(([, v]) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is string => typeof v === 'string' && v.startsWith('/'));
  const declared = [...(step.paths ?? []), ...(step.file ? [step.file.path] : []), ...(step.expect ? [step.expect.path] : [])];
  return (step.args ?? []).filter((a) => named.includes(a) && !declared.some((d) => covers(d, a)));
}
