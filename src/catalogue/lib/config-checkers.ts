/**
 * The configuration checkers an edit under a grant is validated with (issue 29): each service's
 * own check, run on a staged copy before anything is written where the program supports one
 * (Host.checkStaged, src/daemon/staged-check.ts), else live after the write, restored on failure;
 * or the daemon's own parser (json, yaml, toml, ini). docs/config-edits.md lists them.
 */
import { basename, dirname } from 'node:path';
import type { Risk } from '../../protocol/risk.js';
import { command, type CommandStep } from '../mechanism.js';
import type { ProgramName } from '../programs.js';

export const CHECKERS = ['nginx', 'apache', 'sshd', 'sudoers', 'named', 'systemd-unit', 'postfix', 'json', 'yaml', 'toml', 'ini'] as const;
export type CheckerName = (typeof CHECKERS)[number];
export const PARSERS = ['json', 'yaml', 'toml', 'ini'] as const;
export type ParserName = (typeof PARSERS)[number];

/** A staged check by a program: files the daemon writes beside the staged copy, then the program. */
export interface StagedRun {
  /** Written in the staging directory first, by name (nginx's wrapper). */
  beside: Array<{ name: string; text: string }>;
  program: ProgramName;
  args: string[];
}

export interface Checker {
  name: CheckerName;
  /** For a person: "nginx -t", "a YAML parser". */
  describe: string;
  /** The risk an edit it checks carries at least: 'high' for access control (sshd, sudoers), else 'medium'. */
  risk: Risk;
  /** The program it runs (an error says which package to install, `package`), or null for the daemon's own parsers. */
  program: ProgramName | null;
  /** The Debian package that provides `program`, for the error when it is missing; null for the parsers. */
  package: string | null;
  /**
   * Whether it checks a staged copy of `target` before anything is written (at preview and again at
   * execute, via Host.checkStaged). False: the edit is applied, checked live, and restored on failure.
   * Per target: a drop-in (sshd_config.d, a unit's NAME.d) means nothing on its own, and an nginx
   * file outside the http-level folders (snippets) cannot be wrapped.
   */
  staged: (target: string) => boolean;
  /**
   * Whether the staged check may run on text no person approved yet (a preview). False where the
   * program, run as root on the text, acts on what the text names: nginx -t loads the OpenSSL engine
   * a `ssl_certificate_key engine:/PATH:ID` names (a shared object: code as root), creates the log
   * files it names and chowns the temp directories it names (all three seen on nginx 1.22.1);
   * named-checkconf loads the plugin modules it names. The daemon refuses it outside an approved
   * change (RealHost.checkStaged).
   */
  beforeApproval: boolean;
  /** The daemon's own parser, or null. */
  parser: ParserName | null;
  /** The staged check's program run, given the target, the staged copy's path and the staging directory; null when not staged. */
  stagedRun: ((target: string, staged: string, dir: string) => StagedRun) | null;
  /**
   * The live check run after the file is written, as a mechanism step, or null when the staged check
   * suffices (the parsers, a whole unit file). A file another one includes (a sudoers.d file, an sshd
   * or nginx file) is checked again in the whole configuration that reads it. `staged(target)` false
   * and `live(target)` null: the checker cannot check that file (systemd-unit on a file systemd reads
   * neither as a unit nor as a drop-in), and no edit of it is checked by this checker: refuse it.
   */
  live: (target: string) => CommandStep | null;
}

/** nginx files read inside the `http` block (Debian's sites and conf.d): checked staged inside a wrapper. */
const NGINX_HTTP_DIRS = ['/etc/nginx/sites-available', '/etc/nginx/sites-enabled', '/etc/nginx/conf.d'];
const nginxWhole = (target: string) => basename(target) === 'nginx.conf';
const nginxHttp = (target: string) => NGINX_HTTP_DIRS.includes(dirname(target));
/** The wrapper's name in the staging directory: never a target's basename (those have no leading dot). */
export const NGINX_WRAPPER = '.airlock-nginx-check.conf';
/**
 * nginx's configuration file option with its value attached (`-c/PATH`, which nginx's option
 * parser takes as `-c PATH`): the executor refuses a bare `-c` argument whatever the program
 * (a shell's "run this string"), and nginx has no long form of it.
 */
const nginxConf = (path: string) => `-c${path}`;

/** A unit file's suffixes (systemd.unit(5)): what systemd-analyze verify loads by name. */
const UNIT_SUFFIX = /\.(service|socket|device|mount|automount|swap|target|path|timer|slice|scope)$/;
/** A drop-in: NAME.SUFFIX.d/FILE.conf. */
const unitDropIn = (target: string) => /\.d$/.test(dirname(target)) && UNIT_SUFFIX.test(dirname(target).slice(0, -2));
const sshdMain = (target: string) => basename(target) === 'sshd_config';

const parser = (name: ParserName, describe: string): Checker => ({
  name,
  describe,
  risk: 'medium',
  program: null,
  package: null,
  staged: () => true,
  beforeApproval: true,
  parser: name,
  stagedRun: null,
  live: () => null,
});

export const CHECKER: Record<CheckerName, Checker> = {
  nginx: {
    name: 'nginx',
    describe: 'nginx -t',
    risk: 'medium',
    program: 'nginx',
    package: 'nginx',
    staged: (t) => nginxWhole(t) || nginxHttp(t),
    beforeApproval: false,
    parser: null,
    // A site is read inside `http`: the wrapper gives it one, with nginx's own MIME types, and keeps
    // the pid file and error log nginx -t opens inside the staging directory.
    stagedRun: (target, staged, dir) =>
      nginxWhole(target)
        ? { beside: [], program: 'nginx', args: ['-t', '-q', nginxConf(staged)] }
        : {
            beside: [{ name: NGINX_WRAPPER, text: `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  include /etc/nginx/mime.types;\n  include ${staged};\n}\n` }],
            program: 'nginx',
            args: ['-t', '-q', nginxConf(`${dir}/${NGINX_WRAPPER}`)],
          },
    live: () => command('nginx', ['-t', '-q'], { noUndo: 'changes_nothing' }),
  },
  apache: {
    name: 'apache',
    describe: 'apachectl configtest',
    risk: 'medium',
    program: 'apachectl',
    package: 'apache2',
    // apachectl checks the installed configuration only: no file of a site can be checked alone.
    staged: () => false,
    beforeApproval: false,
    parser: null,
    stagedRun: null,
    live: () => command('apachectl', ['configtest'], { noUndo: 'changes_nothing' }),
  },
  sshd: {
    name: 'sshd',
    describe: 'sshd -t',
    risk: 'high',
    program: 'sshd',
    package: 'openssh-server',
    // sshd_config is checked whole; a drop-in only in the configuration that includes it (live).
    staged: sshdMain,
    beforeApproval: true,
    parser: null,
    stagedRun: (_t, staged) => ({ beside: [], program: 'sshd', args: ['-t', '-f', staged] }),
    live: () => command('sshd', ['-t'], { noUndo: 'changes_nothing' }),
  },
  sudoers: {
    name: 'sudoers',
    describe: 'visudo --check',
    risk: 'high',
    program: 'visudo',
    package: 'sudo',
    staged: () => true,
    beforeApproval: true,
    parser: null,
    stagedRun: (_t, staged) => ({ beside: [], program: 'visudo', args: ['--check', `--file=${staged}`] }),
    // The staged copy is checked alone; the whole policy (every file /etc/sudoers includes) once it is written.
    live: () => command('visudo', ['--check', '--quiet'], { noUndo: 'changes_nothing' }),
  },
  named: {
    name: 'named',
    describe: 'named-checkconf',
    risk: 'medium',
    program: 'named-checkconf',
    package: 'bind9-utils',
    // A configuration file (named.conf and the files it includes); zone files need named-checkzone, which no checker runs.
    staged: () => true,
    beforeApproval: false,
    parser: null,
    // It loads the plugin modules the text names to check their parameters (its -c, core only, is a
    // bare -c the executor refuses): one more reason it runs only on approved text.
    stagedRun: (_t, staged) => ({ beside: [], program: 'named-checkconf', args: ['--', staged] }),
    live: () => command('named-checkconf', [], { noUndo: 'changes_nothing' }),
  },
  'systemd-unit': {
    name: 'systemd-unit',
    describe: 'systemd-analyze verify',
    risk: 'medium',
    program: 'systemd-analyze',
    package: 'systemd',
    // A whole unit file is verified staged (its name, with the suffix, is kept); a drop-in with its unit, live.
    staged: (t) => UNIT_SUFFIX.test(basename(t)),
    beforeApproval: true,
    parser: null,
    // --man=false: no man(1) run for Documentation=; --recursive-errors=no: the units it names are not judged.
    stagedRun: (_t, staged) => ({ beside: [], program: 'systemd-analyze', args: ['verify', '--man=false', '--recursive-errors=no', '--', staged] }),
    live: (t) => (unitDropIn(t) ? command('systemd-analyze', ['verify', '--man=false', '--recursive-errors=no', '--', basename(dirname(t)).slice(0, -2)], { noUndo: 'changes_nothing' }) : null),
  },
  postfix: {
    name: 'postfix',
    describe: 'postfix check',
    risk: 'medium',
    program: 'postfix',
    package: 'postfix',
    // postfix check reads the installed configuration: live only.
    staged: () => false,
    beforeApproval: false,
    parser: null,
    stagedRun: null,
    live: () => command('postfix', ['check'], { noUndo: 'changes_nothing' }),
  },
  json: parser('json', 'a JSON parser'),
  yaml: parser('yaml', 'a YAML parser'),
  toml: parser('toml', 'a TOML parser'),
  ini: parser('ini', 'an INI parser (blank, ; or # comment, [section], key = value)'),
};

/** At most this many bytes of new content are checked (and so edited): more is refused. */
export const MAX_CHECKED_BYTES = 1024 * 1024;
/** At most this many problem lines, each at most PROBLEM_CHARS characters. */
export const MAX_PROBLEMS = 20;
export const PROBLEM_CHARS = 200;
