#!/usr/bin/env node
// `npm install` builds the peer-credential addon (native/) against the headers of the
// Node that runs it, wherever that Node lives (/usr, /usr/local, an nvm folder): a
// hard-coded nodedir breaks every install whose Node is elsewhere. The headers are
// looked for under the running Node's prefix; found, node-gyp is told so (--nodedir),
// else node-gyp fetches the headers for this very version itself. No shell: node-gyp
// runs by path with an argv array.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The prefix whose include/node/node_api.h belongs to this Node: its bin/node's parent, or null. */
export function nodeHeadersPrefix(execPath = process.execPath) {
  const prefix = dirname(dirname(execPath));
  return existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? prefix : null;
}

/** node-gyp's own script: the copy npm ships beside the Node that runs it, else one in node_modules. */
function nodeGypScript() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return null;
  }
}

const gyp = nodeGypScript();
if (!gyp) {
  process.stderr.write('airlock: node-gyp was not found (it comes with npm): install npm for this Node, then run `npm install` again\n');
  process.exit(1);
}
const prefix = nodeHeadersPrefix();
const args = [gyp, 'rebuild', `--directory=${join(root, 'native')}`, ...(prefix ? [`--nodedir=${prefix}`] : [])];
process.stdout.write(`airlock: building the peer-credential addon with ${prefix ? `the headers in ${prefix}/include/node` : 'headers node-gyp fetches for this Node'} (Node ${process.version})\n`);
const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
if (r.status !== 0) {
  process.stderr.write('airlock: the addon did not build: it needs g++, make and python3 (Debian: apt-get install g++ make python3)\n');
  process.exit(r.status ?? 1);
}
