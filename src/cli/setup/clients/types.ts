/** What a client module says: how to tell the client is here, and which files setup writes for it in each scope. */
import type { Place } from '../detect.js';
import type { ServerSpec } from '../server.js';
import type { Target } from '../targets.js';

export type ClientId = 'claude' | 'cursor' | 'codex' | 'vscode';
/** project: files in the project folder (the client's project configuration); user: the account's own files. */
export type Scope = 'project' | 'user';

export interface Client {
  id: ClientId;
  name: string;
  /** Why it counts as present (a command on PATH, a folder in the home), or null. */
  detect(p: Place): string | null;
  /** The files for this scope, and anything the person should know about them. */
  plan(p: Place, scope: Scope, server: ServerSpec): { targets: Target[]; notes: string[] };
  /** What the person does after setup for the client to start the server. */
  next: string;
}
