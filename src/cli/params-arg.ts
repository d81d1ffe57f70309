/** Builds a parameter object from `--param k=v` (string) / `--param k:=JSON` (typed) or `--params JSON`. */
import { AirlockError } from '../protocol/errors.js';

export function buildParams(pairs: string[] = [], json?: string): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  if (json !== undefined) {
    try {
      out = JSON.parse(json);
    } catch {
      throw new AirlockError('validation', 'bad_params_json', '--params is not valid JSON', `example: --params '{"user":"deploy"}'`);
    }
    if (typeof out !== 'object' || out === null || Array.isArray(out)) throw new AirlockError('validation', 'bad_params_json', '--params must be a JSON object');
  }
  for (const p of pairs) {
    const typed = /^([A-Za-z_][A-Za-z0-9_]*):=(.*)$/s.exec(p);
    const plain = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(p);
    if (typed) {
      try {
        out[typed[1]!] = JSON.parse(typed[2]!);
      } catch {
        throw new AirlockError('validation', 'bad_param', `--param ${typed[1]}:= needs a JSON value`, 'e.g. --param limit:=10 or --param groups:=\'["adm"]\'');
      }
    } else if (plain) out[plain[1]!] = plain[2]!;
    else throw new AirlockError('validation', 'bad_param', `--param ${JSON.stringify(p)} is not key=value or key:=JSON`);
  }
  return out;
}
