/**
 * Risk overrides from a root-owned JSON file ({"ActionName": "high"}). An override
 * may only raise an action's risk; a lowering, an unknown action or a file others
 * can write is a startup error.
 */
import { readFileSync, statSync } from 'node:fs';
import { AirlockError } from '../protocol/errors.js';
import { RISKS, riskRank, type Risk } from '../protocol/risk.js';
import { CATALOGUE } from '../catalogue/index.js';

export function loadRiskOverrides(path: string | undefined): Map<string, Risk> {
  const out = new Map<string, Risk>();
  if (!path) return out;
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw e;
  }
  if (st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new AirlockError('integrity', 'overrides_untrusted', `${path} must be owned by root and not writable by group or others`);
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new AirlockError('validation', 'overrides_bad_json', `${path} is not valid JSON`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new AirlockError('validation', 'overrides_bad_shape', `${path} must be an object of "ActionName": "low|medium|high"`);
  for (const [name, risk] of Object.entries(data)) {
    const action = CATALOGUE.get(name);
    if (!action) throw new AirlockError('validation', 'overrides_unknown_action', `${path}: no action named ${name}`);
    if (!(RISKS as readonly unknown[]).includes(risk)) throw new AirlockError('validation', 'overrides_bad_risk', `${path}: ${name} has risk ${JSON.stringify(risk)}; use low, medium or high`);
    if (riskRank(risk as Risk) < riskRank(action.risk)) {
      throw new AirlockError('validation', 'overrides_lowering', `${path}: ${name} is ${action.risk}; an override may raise a risk, never lower it to ${risk}`);
    }
    out.set(name, risk as Risk);
  }
  return out;
}
