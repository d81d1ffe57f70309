/**
 * Reads of the running kernel through /proc: the parameters it was booted with and its
 * pressure stall information.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action } from '../../action.js';
import { command, fileScan } from '../../mechanism.js';
import { params } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';

export const kernelCommandLine = fixedRead({
  name: 'KernelCommandLine',
  // Sensitive: the boot parameters, which may carry a seed URL or token (cloud-init ds=...).
  sensitive: true,
  reachesNetwork: false,
  family: 'kernel',
  description: 'Show the parameters the running kernel was booted with (/proc/cmdline).',
  summary: 'Read the kernel command line (/proc/cmdline)',
  files: ['/proc/cmdline'],
  steps: [fileScan('/proc/cmdline')],
});

const PRESSURE_FILES = ['/proc/pressure/cpu', '/proc/pressure/memory', '/proc/pressure/io'];

export const resourcePressure = action({
  name: 'ResourcePressure',
  family: 'kernel',
  description:
    'Show pressure stall information: the share of time some (or all) tasks waited for CPU, memory or I/O over the last 10, 60 and 300 seconds, and the total wait in microseconds; each line is prefixed with its file (/proc/pressure/cpu, memory, io).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: PRESSURE_FILES,
  example: {},
  current: async (_p, host) => ({ available: (await host.stat(PRESSURE_FILES[0]!)) !== null }),
  check: (_p, cur) => {
    if (!cur.available) {
      throw new AirlockError('unsupported_platform', 'no_pressure_information', 'this kernel reports no pressure stall information (/proc/pressure is absent: built without CONFIG_PSI, or booted with psi=0)', 'KernelCommandLine shows the boot parameters');
    }
  },
  preview: () => ({ summary: 'Read CPU, memory and I/O pressure (/proc/pressure)', change: null }),
  // A pattern every line matches: grep is here only to prefix each line with the file it comes from.
  mechanism: () => [command('grep', ['--with-filename', '--regexp=^', '--', ...PRESSURE_FILES])],
});
