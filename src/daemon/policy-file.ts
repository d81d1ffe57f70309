/**
 * Reads the policy file for the daemon: root-owned and writable by root only, in a
 * directory likewise, or refused; absent means the built-in default. A symbolic link
 * is refused rather than followed, so nobody can point the daemon at a file they edit.
 */
import { readFileSync } from 'node:fs';
import { AirlockError } from '../protocol/errors.js';
import { DEFAULT_POLICY, parsePolicy, PolicyError, type Policy } from '../policy/policy.js';
import { policyFileProblem } from '../policy/file-trust.js';

export function loadPolicyFile(path: string): Policy {
  const problem = policyFileProblem(path);
  if (problem === 'absent') return DEFAULT_POLICY;
  if (problem) throw new AirlockError('integrity', 'policy_untrusted', problem.message, problem.hint);
  try {
    return parsePolicy(readFileSync(path, 'utf8'));
  } catch (e) {
    if (e instanceof PolicyError) throw new AirlockError('validation', 'policy_invalid', `${path}: ${e.message}`, `check it with \`airlock policy check --file ${path}\``);
    throw e;
  }
}
