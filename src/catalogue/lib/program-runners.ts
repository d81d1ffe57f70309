/**
 * The one table of programs that run other programs, interpret code, give a shell, or
 * are root for whoever may start them with arguments of their choosing. Two callers:
 *
 * - the daemon's own program table and executor (src/catalogue/programs.ts,
 *   src/daemon/programs.ts, src/daemon/executor.ts): entries marked `daemon: 'never'`
 *   (shells, interpreters, programs whose job is to run the program named in their
 *   arguments) are never run by Airlock at all;
 * - every command line the agent composes or picks (a sudo grant, a cron job, the
 *   service a timer starts): ./agent-command.ts refuses every program of this table,
 *   whatever its arguments, since the agent chooses them.
 *
 * Entries marked `daemon: 'catalogue'` run another program or any code only through
 * some of their options (ip netns exec, tcpdump -z, iptables --modprobe) or give root
 * through their arguments (cp, tee, passwd); the catalogue runs some of them with argv
 * it writes itself from constants and validated tokens, reviewed per action.
 *
 * Matching is by base name (versioned names through the patterns). A name is not a
 * proof: a renamed copy of a shell passes this table, which is why the checker also
 * demands a root-owned binary in a system directory with no second name (no hard link),
 * and why the approver sees the whole command line. Think as an attacker (GTFOBins).
 */

export interface ProgramRunner {
  /** Why this program must not run on the agent's behalf. */
  why: string;
  names: readonly string[];
  patterns?: readonly RegExp[];
  /** 'never': not even the daemon runs it. 'catalogue': only with argv a catalogue action writes itself. */
  daemon: 'never' | 'catalogue';
}

export const PROGRAM_RUNNERS: readonly ProgramRunner[] = [
  {
    why: 'it is a shell, or starts one (busybox sh, script, screen)',
    names: ['sh', 'bash', 'rbash', 'dash', 'ash', 'zsh', 'ksh', 'ksh93', 'mksh', 'pdksh', 'yash', 'csh', 'tcsh', 'fish', 'busybox', 'toybox', 'screen', 'tmux', 'byobu', 'script', 'expect', 'rlwrap'],
    daemon: 'never',
  },
  {
    why: 'it is the dynamic loader, which runs any program named in its arguments (ld-linux-x86-64.so.2 /bin/sh); ldd runs the loader',
    names: ['ld.so', 'ldd'],
    patterns: [/^ld-linux/, /^ld64\.so/, /^ld\.so/, /^ld-musl/, /^ld-[0-9.]+\.so/],
    daemon: 'never',
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
    daemon: 'never',
  },
  {
    why: 'it becomes another user or enters another root or namespace, then runs the program named in its arguments',
    names: ['su', 'sudo', 'sudoedit', 'sudoreplay', 'doas', 'pkexec', 'runuser', 'setpriv', 'capsh', 'chroot', 'unshare', 'nsenter', 'login', 'newgrp', 'sg', 'openvt'],
    daemon: 'never',
  },
  {
    why: 'it starts, or attaches to, the program named in its arguments (a debugger, tracer or profiler: strace sh, perf record -- sh)',
    names: ['strace', 'ltrace', 'gdb', 'gdbserver', 'lldb', 'valgrind', 'perf', 'gcore', 'uftrace', 'bpftrace'],
    daemon: 'never',
  },
  {
    why: 'it runs every command it finds, or the one in its arguments, for each file (find -exec sh)',
    names: ['find'],
    daemon: 'never',
  },
  {
    why: 'it is an interpreter or compiler: it runs code given in its arguments, on stdin or in a file (awk "BEGIN{system(...)}", sed "e", python -c)',
    names: [
      'awk', 'gawk', 'mawk', 'nawk', 'sed', 'irb', 'R', 'Rscript', 'java', 'jrunscript', 'jjs', 'jshell', 'groovy', 'scala', 'kotlin', 'erl', 'escript', 'elixir', 'iex', 'julia', 'octave', 'gnuplot',
      'sqlite3', 'mysql', 'mariadb', 'psql', 'dc', 'm4', 'cc', 'c++', 'ld', 'as', 'tcc', 'make', 'gmake', 'cmake', 'ninja', 'rake', 'ant', 'gradle', 'mvn', 'ipython', 'jupyter', 'nodejs', 'node',
    ],
    patterns: [/^python/, /^pypy/, /^pydoc/, /^perl/, /^ruby/, /^php/, /^lua/, /^tclsh/, /^wish/, /^deno$/, /^bun$/, /^guile/, /^gcc/, /^g\+\+/, /^clang/, /^x86_64-linux-gnu-/, /^aarch64-linux-gnu-/, /^i686-linux-gnu-/],
    daemon: 'never',
  },
  {
    why: 'it is an editor, pager or interactive client: a shell escape (!sh, or the pager it opens, as dmesg -H does) runs any command, and it writes any file',
    names: [
      'vi', 'view', 'ex', 'rview', 'rvim', 'vimdiff', 'nvim', 'ed', 'red', 'nano', 'rnano', 'pico', 'joe', 'jed', 'mcedit', 'mc', 'editor', 'sensible-editor', 'select-editor',
      'pager', 'sensible-pager', 'less', 'more', 'most', 'pg', 'man', 'info', 'w3m', 'lynx', 'elinks', 'links', 'ftp', 'tftp', 'telnet', 'ssh', 'scp', 'sftp', 'mail', 'mailx',
      'mutt', 'neomutt', 'htop', 'iftop', 'crash', 'dmesg',
    ],
    patterns: [/^vim/, /^emacs/],
    daemon: 'never',
  },
  // ---- The daemon's catalogue runs some of the following with argv it writes itself.
  { why: 'it runs any program in a network namespace (ip netns exec NS sh) and reads commands from a file (ip -batch)', names: ['ip'], daemon: 'catalogue' },
  {
    why: 'it runs a login program its arguments name (agetty -l /bin/sh), expands strings that run commands (exim -be), or opens a pager with a shell escape at a terminal (dpkg-query -l)',
    names: ['agetty', 'getty', 'mingetty', 'mgetty', 'exim', 'exim4', 'sendmail', 'dpkg-query', 'lesskey'],
    daemon: 'catalogue',
  },
  { why: 'it runs a program on each capture file it writes (tcpdump -z sh)', names: ['tcpdump'], daemon: 'catalogue' },
  {
    why: 'it runs the program named by --modprobe to load kernel modules (iptables --modprobe=/path/to/sh)',
    names: ['ebtables', 'arptables'],
    patterns: [/^ip6?tables/, /^xtables/, /^ebtables/, /^arptables/],
    daemon: 'catalogue',
  },
  { why: 'it runs Lua scripts named in its arguments (nmap --script)', names: ['nmap'], daemon: 'catalogue' },
  {
    why: 'it runs a program as one of its options (tar --to-command and --checkpoint-action=exec, zip -TT, rsync -e, git hooks and core.pager, socat EXEC:, nc -e)',
    names: ['tar', 'zip', 'rsync', 'git', 'socat', 'nc', 'ncat', 'netcat', 'nc.traditional', 'nc.openbsd', 'gpg', 'gpg2', 'openssl', 'ssh-keygen', 'pkcs11-tool', 'certbot', 'aria2c'],
    daemon: 'catalogue',
  },
  {
    why: 'it makes root run commands later or now: units, jobs, init scripts, rotation scripts (systemctl start, link and edit; crontab; at; service; logrotate), or calls any D-Bus method of systemd',
    names: [
      'logrotate', 'systemd-analyze',
      'systemctl', 'service', 'journalctl', 'loginctl', 'machinectl', 'networkctl', 'resolvectl', 'timedatectl', 'hostnamectl', 'localectl', 'coredumpctl', 'bootctl', 'homectl', 'portablectl',
      'busctl', 'dbus-send', 'gdbus', 'crontab', 'at', 'batch', 'update-rc.d', 'invoke-rc.d', 'systemd-tmpfiles', 'systemd-sysusers',
    ],
    daemon: 'catalogue',
  },
  {
    why: "it runs a package's maintainer scripts or a configuration manager's code as root, writes a package's files or a program link anywhere, or opens a pager (dpkg -l, apt-get changelog)",
    names: [
      'apt', 'apt-get', 'aptitude', 'apt-key', 'dpkg', 'dpkg-deb', 'dpkg-reconfigure', 'dpkg-divert', 'dpkg-split', 'debconf', 'rpm', 'dnf', 'yum', 'snap', 'flatpak', 'pipx', 'npm', 'npx', 'yarn', 'pnpm', 'gem', 'bundle', 'cargo', 'go',
      'ansible', 'ansible-playbook', 'puppet', 'chef-client', 'salt-call', 'cloud-init', 'update-alternatives',
    ],
    patterns: [/^pip/, /^cpan/],
    daemon: 'catalogue',
  },
  {
    why: "it runs containers or virtual machines with the host's root file system mounted",
    names: ['docker', 'dockerd', 'podman', 'ctr', 'crictl', 'nerdctl', 'kubectl', 'lxc', 'lxd', 'incus', 'virsh', 'qemu-system-x86_64', 'runc', 'crun'],
    daemon: 'catalogue',
  },
  {
    why: 'it loads code into the kernel or into every program, mounts over any directory, or changes what the kernel runs as root (modprobe install lines, mount, kernel.core_pattern, kexec, ldconfig -f, BPF objects)',
    names: ['modprobe', 'insmod', 'rmmod', 'kmod', 'kexec', 'sysctl', 'mount', 'umount', 'losetup', 'ldconfig', 'tc', 'bpftool'],
    daemon: 'catalogue',
  },
  {
    why: 'it writes, moves, deletes or re-permissions any file named in its arguments or on stdin (/etc/sudoers, /etc/shadow)',
    names: [
      'cp', 'mv', 'rm', 'dd', 'tee', 'sponge', 'install', 'ln', 'link', 'chmod', 'chown', 'chgrp', 'chattr', 'setfacl', 'setcap', 'truncate', 'shred', 'mkdir', 'mknod', 'mkfifo',
      'cpio', 'unzip', '7z', '7za', 'ar', 'gzip', 'gunzip', 'bzip2', 'xz', 'zstd', 'sort', 'uniq', 'split', 'csplit', 'patch', 'curl', 'wget', 'debugfs', 'fdisk', 'sfdisk', 'parted', 'wipefs', 'tune2fs', 'sqlite',
    ],
    patterns: [/^mkfs/, /^mke2fs/],
    daemon: 'catalogue',
  },
  {
    why: 'it prints any file named in its arguments, /etc/shadow and private keys included',
    names: ['cat', 'tac', 'head', 'tail', 'nl', 'od', 'xxd', 'hexdump', 'hd', 'strings', 'base64', 'base32', 'basenc', 'grep', 'egrep', 'fgrep', 'rg', 'zgrep', 'zcat', 'bzcat', 'xzcat', 'diff', 'cmp', 'comm', 'cut', 'paste', 'fold', 'fmt', 'column', 'iconv', 'jq', 'look', 'file', 'cvtsudoers'],
    daemon: 'catalogue',
  },
  {
    why: 'it changes who is root: accounts, passwords, groups, the sudo policy, or Airlock approvals',
    names: ['visudo', 'vipw', 'vigr', 'passwd', 'chpasswd', 'usermod', 'useradd', 'userdel', 'groupmod', 'groupadd', 'groupdel', 'gpasswd', 'adduser', 'deluser', 'addgroup', 'delgroup', 'chsh', 'chfn', 'chage', 'pwck', 'grpck', 'airlock'],
    daemon: 'catalogue',
  },
];

/** The entry naming this program (by base name: "/usr/bin/python3.11" and "python3.11" alike), or null. */
export function programRunner(program: string): ProgramRunner | null {
  const base = program.slice(program.lastIndexOf('/') + 1);
  return PROGRAM_RUNNERS.find((r) => r.names.includes(base) || (r.patterns ?? []).some((re) => re.test(base))) ?? null;
}

/** True for shells, interpreters and programs whose job is to run another: not even the daemon's catalogue runs these. */
export function neverRunByDaemon(program: string): boolean {
  return programRunner(program)?.daemon === 'never';
}
