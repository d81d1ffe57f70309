/**
 * Measures from outside how long the daemon's event loop is held: a connection of its own
 * sends a cheap request again and again, and each round trip is timed together with the
 * CPU time the daemon's process spent meanwhile (/proc/PID/stat). A loop held by one piece
 * of work for T ms delays a round trip by T and costs T of CPU; a round trip that is slow
 * while the daemon spent little CPU waited for a core on a loaded machine, and is not its
 * loop's doing. So the lag of one round trip is the smaller of the two.
 */
import { readFileSync } from 'node:fs';
import { AirlockClient } from '../../../src/client/client.js';

/** USER_HZ: the unit of utime and stime in /proc/PID/stat (100 on every Linux this runs on). */
const TICK_MS = 10;

/** utime + stime of the process, in ms: the CPU time of all its threads. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the ")" that ends the command name: state is field 3, utime field 14, stime field 15.
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

export class LoopProbe {
  /** The largest lag (min of round trip and daemon CPU) so far, and the largest round trip. */
  maxLagMs = 0;
  maxRoundTripMs = 0;
  rounds = 0;
  /** What was going on at the largest lag (set by the fuzz before each case). */
  current: unknown = null;
  worst: unknown = null;
  private running = true;
  private done: Promise<void>;

  private constructor(
    private readonly client: AirlockClient,
    private readonly pid: number,
    private readonly call: () => Promise<unknown>,
  ) {
    this.done = this.loop();
  }

  static async start(socket: string, pid: number): Promise<LoopProbe> {
    const client = await AirlockClient.connect(socket);
    return new LoopProbe(client, pid, () => client.callUnchecked('audit.pubkey', {}));
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const cpu0 = cpuMs(this.pid);
      const t0 = performance.now();
      await this.call();
      const rtt = performance.now() - t0;
      const cpu = cpuMs(this.pid) - cpu0;
      const lag = Math.min(rtt, cpu);
      this.rounds++;
      this.maxRoundTripMs = Math.max(this.maxRoundTripMs, rtt);
      if (lag > this.maxLagMs) {
        this.maxLagMs = lag;
        this.worst = this.current;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Waits for one more round trip to start and end, so work just sent is covered. */
  async settle(): Promise<void> {
    const n = this.rounds;
    while (this.rounds < n + 2) await new Promise((r) => setTimeout(r, 2));
  }

  /** Starts a new measurement (one fuzz target's). */
  reset(): void {
    this.maxLagMs = 0;
    this.maxRoundTripMs = 0;
    this.rounds = 0;
    this.worst = null;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
    this.client.close();
  }
}
