/**
 * The programs the daemon never runs: shells, interpreters, the dynamic loader, and
 * programs whose job is to run the program named in their arguments. The daemon's own
 * program table (src/catalogue/programs.ts) is an allowlist already; this table is the
 * second guard under it: src/daemon/programs.ts drops a table entry that resolves to one
 * of these, and the executor refuses every command naming one (shellViolation).
 *
 * Commands root runs later on the agent's behalf (sudo grants, cron jobs, timer units)
 * are not judged here: they come from their own allowlist with grammars
 * (./agent-programs.ts), which names none of these.
 *
 * Matching is by base name (versioned names through the patterns). Think as an attacker (GTFOBins).
 */

export interface ProgramRunner {
  /** Why this program must not run on the agent's behalf. */
  why: string;
  names: readonly string[];
  patterns?: readonly RegExp[];
}

export const PROGRAM_RUNNERS: readonly ProgramRunner[] = [
  {
    why: 'it is a shell, or starts one (busybox sh, script, screen)',
    names: ['sh', 'bash', 'rbash', 'dash', 'ash', 'zsh', 'ksh', 'ksh93', 'mksh', 'pdksh', 'yash', 'csh', 'tcsh', 'fish', 'busybox', 'toybox', 'screen', 'tmux', 'byobu', 'script', 'expect', 'rlwrap'],
  },
  {
    why: 'it is the dynamic loader, which runs any program named in its arguments (ld-linux-x86-64.so.2 /bin/sh); ldd runs the loader',
    names: ['ld.so', 'ldd'],
    patterns: [/^ld-linux/, /^ld64\.so/, /^ld\.so/, /^ld-musl/, /^ld-[0-9.]+\.so/],
  },
  {
    why: 'it runs the program named in its arguments (env sh, nice sh, setarch x86_64 sh, logsave /dev/null sh, ssh-agent sh, ...)',
    names: [
      'env', 'xargs', 'nohup', 'nice', 'ionice', 'timeout', 'stdbuf', 'time', 'watch', 'taskset', 'chrt', 'flock', 'setsid', 'prlimit', 'numactl', 'parallel', 'cpulimit', 'chronic',
      'setarch', 'linux32', 'linux64', 'i386', 'x86_64', 'uname26', 'logsave', 'catchsegv', 'xvfb-run', 'unbuffer',
      'run-parts', 'start-stop-daemon', 'daemonize', 'setuidgid', 'chpst', 'runit', 'runsv',
      'ssh-agent', 'gpg-agent', 'dbus-run-session', 'dbus-launch',
      'systemd-run', 'run0', 'systemd-cat', 'systemd-inhibit', 'systemd-socket-activate', 'systemd-nspawn',
      'firejail', 'bwrap', 'fakeroot', 'fakechroot', 'faketime', 'torsocks', 'proxychains', 'proxychains4', 'trickle',
    ],
  },
  {
    why: 'it becomes another user or enters another root or namespace, then runs the program named in its arguments',
    names: ['su', 'sudo', 'sudoedit', 'sudoreplay', 'doas', 'pkexec', 'runuser', 'setpriv', 'capsh', 'chroot', 'unshare', 'nsenter', 'login', 'newgrp', 'sg', 'openvt'],
  },
  {
    why: 'it starts, or attaches to, the program named in its arguments (a debugger, tracer or profiler: strace sh, perf record -- sh)',
    names: ['strace', 'ltrace', 'gdb', 'gdbserver', 'lldb', 'valgrind', 'perf', 'gcore', 'uftrace', 'bpftrace'],
  },
  {
    why: 'it runs every command it finds, or the one in its arguments, for each file (find -exec sh)',
    names: ['find'],
  },
  {
    why: 'it is an interpreter or compiler: it runs code given in its arguments, on stdin or in a file (awk "BEGIN{system(...)}", sed "e", python -c)',
    names: [
      'awk', 'gawk', 'mawk', 'nawk', 'sed', 'irb', 'R', 'Rscript', 'java', 'jrunscript', 'jjs', 'jshell', 'groovy', 'scala', 'kotlin', 'erl', 'escript', 'elixir', 'iex', 'julia', 'octave', 'gnuplot',
      'sqlite3', 'mysql', 'mariadb', 'psql', 'dc', 'm4', 'cc', 'c++', 'ld', 'as', 'tcc', 'make', 'gmake', 'cmake', 'ninja', 'rake', 'ant', 'gradle', 'mvn', 'ipython', 'jupyter', 'nodejs', 'node',
    ],
    patterns: [/^python/, /^pypy/, /^pydoc/, /^perl/, /^ruby/, /^php/, /^lua/, /^tclsh/, /^wish/, /^deno$/, /^bun$/, /^guile/, /^gcc/, /^g\+\+/, /^clang/, /^x86_64-linux-gnu-/, /^aarch64-linux-gnu-/, /^i686-linux-gnu-/],
  },
  {
    why: 'it is an editor, pager or interactive client: a shell escape (!sh, or the pager it opens, as dmesg -H does) runs any command, and it writes any file',
    names: [
      'vi', 'view', 'ex', 'rview', 'rvim', 'vimdiff', 'nvim', 'ed', 'red', 'nano', 'rnano', 'pico', 'joe', 'jed', 'mcedit', 'mc', 'editor', 'sensible-editor', 'select-editor',
      'pager', 'sensible-pager', 'less', 'more', 'most', 'pg', 'man', 'info', 'w3m', 'lynx', 'elinks', 'links', 'ftp', 'tftp', 'telnet', 'ssh', 'scp', 'sftp', 'mail', 'mailx',
      'mutt', 'neomutt', 'htop', 'iftop', 'crash', 'dmesg',
    ],
    patterns: [/^vim/, /^emacs/],
  },
];

/** The entry naming this program (by base name: "/usr/bin/python3.11" and "python3.11" alike), or null. */
export function programRunner(program: string): ProgramRunner | null {
  const base = program.slice(program.lastIndexOf('/') + 1);
  return PROGRAM_RUNNERS.find((r) => r.names.includes(base) || (r.patterns ?? []).some((re) => re.test(base))) ?? null;
}

/** True for shells, interpreters and programs whose job is to run another: the daemon never runs these. */
export function neverRunByDaemon(program: string): boolean {
  return programRunner(program) !== null;
}
