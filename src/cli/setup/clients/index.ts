/** The clients setup knows, in the order it reports them. */
import { claude } from './claude.js';
import { codex } from './codex.js';
import { cursor } from './cursor.js';
import type { Client, ClientId } from './types.js';
import { vscode } from './vscode.js';

export const CLIENTS: readonly Client[] = [claude, cursor, codex, vscode];
export const CLIENT_IDS: readonly ClientId[] = CLIENTS.map((c) => c.id);
export type { Client, ClientId, Scope } from './types.js';
