#!/usr/bin/env node
// Routes `airlock daemon` to the privileged entry point and everything else to the
// unprivileged CLI, so the CLI never loads daemon code. Runs the compiled build
// (made by `npm install`); falls back to the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = process.argv[2] === 'daemon' ? 'daemon/entry' : 'cli/main';
const built = join(root, 'dist', `${target}.js`);
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', `${target}.ts`)).href);
}
