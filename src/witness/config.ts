/**
 * The witness's configuration: its own name (the key name of its cosignatures) and the logs
 * it witnesses, each an origin and the log's verifier key(s). A TOML file:
 *
 *   name = "witness.example/w1"
 *   [[log]]
 *   origin = "host-a/airlock/0123456789abcdef"
 *   key = "host-a/airlock/0123456789abcdef+1a2b3c4d+AX..."      # or keys = ["...", "..."] during a rotation
 *
 * Only listed logs are witnessed (an allowlist): an unknown origin is 404 on the wire.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { AirlockError } from '../protocol/errors.js';
import { parseVkey, SIG_ED25519 } from '../audit/note.js';

/** Bounds: the config is the operator's, but a typo should not make a witness of a million logs. */
export const MAX_LOGS = 10_000;
export const MAX_KEYS_PER_LOG = 8;
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
const NAME = /^[^\s+\p{Cc}]{1,255}$/u;

export interface WitnessedLog {
  origin: string;
  /** Raw Ed25519 public keys whose signature under the origin counts as the log's. */
  keys: Buffer[];
}

export interface WitnessConfig {
  name: string;
  logs: Map<string, WitnessedLog>;
}

const bad = (path: string, why: string) =>
  new AirlockError('validation', 'bad_witness_config', `witness config ${path}: ${why}`, 'see `airlock witness serve --help` for the file format');

export function loadWitnessConfig(path: string): WitnessConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new AirlockError('validation', 'witness_config_unreadable', `cannot read witness config ${path}: ${(e as Error).message}`, 'pass --config FILE (see `airlock witness serve --help`)');
  }
  return parseWitnessConfig(text, path);
}

export function parseWitnessConfig(text: string, path = 'config'): WitnessConfig {
  if (text.length > MAX_CONFIG_BYTES) throw bad(path, `over ${MAX_CONFIG_BYTES} bytes`);
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw bad(path, `not TOML: ${(e as Error).message.split('\n')[0]}`);
  }
  for (const k of Object.keys(doc)) if (k !== 'name' && k !== 'log') throw bad(path, `unknown setting ${JSON.stringify(k)} (known: name, [[log]])`);
  const name = doc.name;
  if (typeof name !== 'string' || !NAME.test(name)) throw bad(path, 'name = "..." (the witness name, e.g. "witness.example/w1": no space, no "+") is required');
  const list = doc.log ?? [];
  if (!Array.isArray(list)) throw bad(path, 'log must be an array of tables: [[log]]');
  if (list.length > MAX_LOGS) throw bad(path, `over ${MAX_LOGS} logs`);
  const logs = new Map<string, WitnessedLog>();
  list.forEach((entry: unknown, i: number) => {
    const where = `[[log]] number ${i + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw bad(path, `${where} is not a table`);
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e)) if (!['origin', 'key', 'keys'].includes(k)) throw bad(path, `${where}: unknown setting ${JSON.stringify(k)} (known: origin, key, keys)`);
    if (typeof e.origin !== 'string' || !NAME.test(e.origin)) throw bad(path, `${where}: origin = "..." (no space, no "+") is required`);
    const vkeys = e.key !== undefined ? [e.key] : e.keys;
    if ((e.key === undefined) === (e.keys === undefined)) throw bad(path, `${where}: give key = "<vkey>" or keys = ["<vkey>", ...], one of them`);
    if (!Array.isArray(vkeys) || vkeys.length === 0 || vkeys.length > MAX_KEYS_PER_LOG) throw bad(path, `${where}: 1 to ${MAX_KEYS_PER_LOG} keys`);
    const keys = vkeys.map((v) => {
      if (typeof v !== 'string') throw bad(path, `${where}: a key is a vkey string`);
      const vk = parseVkey(v, [SIG_ED25519]);
      // The log signs under its origin (tlog-checkpoint): a key of another name would never match a line.
      if (vk.name !== e.origin) throw bad(path, `${where}: key ${vk.name} is not named after the origin ${e.origin}`);
      return vk.publicRaw;
    });
    if (logs.has(e.origin)) throw bad(path, `origin ${e.origin} is listed twice`);
    logs.set(e.origin, { origin: e.origin, keys });
  });
  return { name, logs };
}
