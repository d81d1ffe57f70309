/**
 * Where setup looks and writes: the account's home, the project folder, and the places each
 * client keeps its files, from the environment the way the clients themselves read it
 * (CODEX_HOME for Codex, XDG_CONFIG_HOME for VS Code). And whether a client is present: its
 * command on PATH or its folder in the home, looked up directly (no shell, no `which`).
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export interface Place {
  home: string;
  project: string;
  codexHome: string;
  /** VS Code's user profile folder, where its user-level mcp.json lives. */
  vscodeUser: string;
  pathDirs: string[];
}

export function place(project: string | undefined, env: NodeJS.ProcessEnv = process.env): Place {
  const home = homedir();
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return {
    home,
    project: resolve(project ?? process.cwd()),
    codexHome: env.CODEX_HOME && isAbsolute(env.CODEX_HOME) ? env.CODEX_HOME : join(home, '.codex'),
    vscodeUser: join(xdg, 'Code', 'User'),
    pathDirs: (env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d)),
  };
}

/** The first executable file called `name` on PATH, or null. */
export function onPath(name: string, p: Place): string | null {
  for (const dir of p.pathDirs) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {}
  }
  return null;
}

/** Why a client counts as present: the first of its commands found on PATH, or the first of its paths that exists. */
export function presence(p: Place, commands: string[], paths: string[]): string | null {
  for (const c of commands) {
    const found = onPath(c, p);
    if (found) return `${c} on PATH (${found})`;
  }
  for (const f of paths) if (existsSync(f)) return shown(f, p);
  return null;
}

/** A path as shown to the person: ~ for the home. */
export function shown(path: string, p: Place): string {
  return path === p.home ? '~' : path.startsWith(p.home + '/') ? `~${path.slice(p.home.length)}` : path;
}
