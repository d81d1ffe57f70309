/**
 * `airlock setup`: which clients, which scope, the plan, a confirmation at a terminal, the
 * writes, the checks, the report. Loaded only when the command runs (index.ts imports it
 * lazily), so the CLI's start-up does not pay for it.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { socketPath } from '../../client/client.js';
import { escapeText } from '../../protocol/escape-text.js';
import { c, EXIT, printJson } from '../ui.js';
import { runChecks } from './checks.js';
import { CLIENTS, type ClientId, type Scope } from './clients/index.js';
import { place } from './detect.js';
import { apply, changes, planClient } from './plan.js';
import { renderChecks, renderNext, renderPlan, reportJson, type Report } from './report.js';
import { redacted, serverSpec } from './server.js';

export interface SetupOptions {
  clients: ClientId[];
  all: boolean;
  user: boolean;
  project?: string;
  socket?: string;
  dryRun: boolean;
  uninstall: boolean;
  yes: boolean;
  json: boolean;
}

/** Clients whose project-scope server file sits in the project folder (which is often committed). */
const PROJECT_FILES: readonly ClientId[] = ['claude', 'cursor', 'vscode'];

function usage(message: string, json: boolean): number {
  if (json) printJson({ ok: false, usage: message });
  else process.stderr.write(`${c.red('error')} ${escapeText(message)}\n`);
  return EXIT.usage;
}

async function confirmed(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^(y|yes|)$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function runSetup(o: SetupOptions): Promise<number> {
  const p = place(o.project);
  const scope: Scope = o.user ? 'user' : 'project';
  if (!existsSync(p.project)) return usage(`the project folder ${p.project} does not exist`, o.json);
  let chosen = o.all || (o.uninstall && o.clients.length === 0) ? [...CLIENTS] : CLIENTS.filter((k) => o.clients.includes(k.id));
  if (chosen.length === 0) {
    chosen = CLIENTS.filter((k) => k.detect(p) !== null);
    if (chosen.length === 0) return usage('found none of Claude Code, Cursor, Codex CLI or VS Code for this account: name the client (--claude, --cursor, --codex, --vscode, or --all)', o.json);
  }

  // The socket the agent's server must use, when it is not the default: named here, or in this shell's environment.
  const named = o.socket ?? process.env.AIRLOCK_SOCKET;
  const env: Record<string, string> = {};
  if (named) env.AIRLOCK_SOCKET = named.startsWith('tcp:') || isAbsolute(named) ? named : resolve(named);
  const token = process.env.AIRLOCK_TOKEN?.trim();
  if (token) env.AIRLOCK_TOKEN = token;
  if (token && !o.uninstall && scope === 'project') {
    const inProject = chosen.filter((k) => PROJECT_FILES.includes(k.id));
    if (inProject.length) {
      return usage(`AIRLOCK_TOKEN is set, and ${inProject.map((k) => k.name).join(', ')} would keep it in the project folder, which is often committed: add --user to write the server to your own files instead (mode 0600)`, o.json);
    }
  }
  const server = serverSpec(env);

  const steps = chosen.map((k) => {
    const { targets, notes } = k.plan(p, scope, server);
    return planClient(k, targets, notes, p, o.uninstall);
  });
  const report: Report = { dryRun: o.dryRun, uninstall: o.uninstall, scope, project: p.project, server: redacted(server), steps, checks: null };

  const atTerminal = process.stdin.isTTY && process.stdout.isTTY && !o.json;
  if (!o.dryRun && changes(steps).length > 0) {
    if (atTerminal && !o.yes) {
      process.stdout.write(renderPlan(report));
      if (!(await confirmed(`\n${o.uninstall ? 'Remove' : 'Write'} these? [Y/n] `))) {
        process.stdout.write('nothing was written\n');
        return EXIT.ok;
      }
      apply(steps);
      report.checks = o.uninstall ? null : await runChecks(socketPath(named), Boolean(token));
      // What was shown stands, unless a write failed: then the whole result again.
      const failed = exitFor(report) !== EXIT.ok;
      process.stdout.write(`${failed ? `\n${renderPlan(report)}` : `${c.green('done')}\n`}${report.checks ? renderChecks(report.checks) : ''}${renderNext(report)}`);
      return exitFor(report);
    }
    apply(steps);
  }
  report.checks = o.uninstall ? null : await runChecks(socketPath(named), Boolean(token));
  const code = exitFor(report);
  if (o.json) printJson(reportJson(report, code === EXIT.ok));
  else process.stdout.write(renderPlan(report) + (report.checks ? renderChecks(report.checks) : '') + renderNext(report));
  return code;
}

/** A refused file is the one failure: checks report, they do not fail the command (the daemon may come later). */
function exitFor(r: Report): number {
  return r.steps.some((s) => s.files.some((f) => f.action === 'refused' || f.action === 'held')) ? EXIT.conflict : EXIT.ok;
}
