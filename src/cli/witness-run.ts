/** The bodies of `airlock witness serve` and `airlock witness key` (declared in witness.ts). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { AirlockError } from '../protocol/errors.js';
import { loadKeyFile, signingKeyFromSeed } from '../audit/keys.js';
import { formatWitnessVkey } from '../audit/note.js';
import { loadWitnessConfig } from '../witness/config.js';
import { WitnessState } from '../witness/state.js';
import { OriginLocks } from '../witness/add-checkpoint.js';
import { createWitnessServer } from '../witness/server.js';
import { escapeText } from '../protocol/escape-text.js';
import { printJson } from './ui.js';

interface ServeOptions {
  config: string;
  key: string;
  createKey?: boolean;
  listen: string;
  state?: string;
  cert?: string;
  tlsKey?: string;
  json?: boolean;
}

function witnessKey(path: string, create: boolean) {
  return signingKeyFromSeed(
    loadKeyFile(path, {
      create,
      missing: () => new AirlockError('validation', 'witness_key_missing', `witness key ${path} does not exist`, `add --create-key to create it (then give logs its vkey: \`airlock witness key --key ${path} --config FILE\`)`),
    }),
  );
}

/** "HOST:PORT", "[v6]:PORT": an allowlist of what a listen address is. */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new AirlockError('validation', 'bad_listen', `--listen ${JSON.stringify(text)} is not HOST:PORT`, 'e.g. --listen 127.0.0.1:7380, or [::1]:7380; port 0 picks a free one');
  return { host: (m[1] ?? m[2])!, port };
}

export async function serve(o: ServeOptions): Promise<number | void> {
  const config = loadWitnessConfig(o.config);
  const key = witnessKey(o.key, Boolean(o.createKey));
  const statePath = o.state ?? join(dirname(o.config), 'witness-state.json');
  const state = WitnessState.load(statePath);
  const { host, port } = parseListen(o.listen);
  if ((o.cert === undefined) !== (o.tlsKey === undefined)) throw new AirlockError('validation', 'tls_half', '--cert and --tls-key go together', 'give both for HTTPS, or neither for HTTP (behind a TLS proxy)');
  const tls = o.cert !== undefined && o.tlsKey !== undefined ? { cert: readFileSync(o.cert), key: readFileSync(o.tlsKey) } : undefined;
  const server = createWitnessServer({ config, key, state, locks: new OriginLocks() }, { ...(tls ? { tls } : {}), log: (l) => process.stderr.write(`witness: ${escapeText(l)}\n`) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new AirlockError('transient', 'listen_failed', `cannot listen on ${o.listen}: ${e.message}`, 'pick another --listen address or stop what holds it')));
    server.listen(port, host, resolve);
  });
  const a = server.address() as AddressInfo;
  const url = `${tls ? 'https' : 'http'}://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}/`;
  const vkey = formatWitnessVkey(config.name, key.publicRaw);
  if (o.json) process.stdout.write(JSON.stringify({ listening: url, name: config.name, vkey, logs: config.logs.size, state: statePath }) + '\n');
  else process.stdout.write(`witness ${config.name} listening on ${url} for ${config.logs.size} log(s); state ${statePath}\nvkey ${vkey}\n`);
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

export function key(o: { key: string; name?: string; config?: string; createKey?: boolean; json?: boolean }): number | void {
  const name = o.name ?? (o.config !== undefined ? loadWitnessConfig(o.config).name : undefined);
  if (name === undefined) throw new AirlockError('validation', 'witness_name_missing', 'the vkey names the witness: give --name NAME or --config FILE', 'e.g. airlock witness key --key FILE --name witness.example/w1');
  const k = witnessKey(o.key, Boolean(o.createKey));
  const vkey = formatWitnessVkey(name, k.publicRaw);
  if (o.json) printJson({ name, vkey, keyId: k.keyId });
  else process.stdout.write(`${vkey}\n`);
}
