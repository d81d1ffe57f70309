/** Builds a parameter object from `--param k=v` (string) / `--param k:=JSON` (typed) or `--params JSON`. */
import { AirlockError, type WrongType } from '../protocol/errors.js';

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

/** A word a shell passes as it is, else in single quotes. */
const shellWord = (s: string) => (/^[A-Za-z0-9_.,:+@%=\/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * How to send a parameter the daemon refused for its type (WrongType, on a bad_params error),
 * in this command line's terms: `--param k=v` always sends text, `--param k:=JSON` a typed
 * value. Null for a parameter inside another (then the whole top-level value is to be sent).
 */
export function commandLineFix(w: WrongType): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(w.param)) return null;
  if (w.as_json !== undefined) return `on the command line: --param ${w.param}:=${shellWord(w.as_json)} (\`:=\` sends a JSON value, \`=\` sends text)`;
  if (w.expected.includes('string')) return `on the command line: --param ${w.param}=TEXT sends text`;
  return `on the command line: --param ${w.param}:=JSON sends a JSON value (\`=\` sends text)`;
}
