/**
 * scheduling family, in the booted Debian test bed (cron and systemd running): cron
 * jobs and a timer are created and removed through the daemon; each check reads the
 * files, asks systemctl, and waits for cron and the timer to really run the job.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';
/** Its checks wait for cron's next minute and the timer's run: about eight ordinary scenarios' time each (128 s alone for 5 on 2026-12-07; catalogue shards, test/support/catalogue-scenarios.ts). */
export const weight = 8;

const SYSTEMCTL = '/usr/bin/systemctl';
/** The cron job: one command line of the allowlist (logger and a usage line of it) that leaves a journal entry carrying its uid. */
const PROBE_TAG = 'airlock-cron-probe';
const PROBE = ['/usr/bin/logger', '-t', PROBE_TAG, 'ran'];
const CRON_FILE = '/etc/cron.d/airlock-probe';
/** The service the timer starts: its command is on the allowlist too. */
const JOB_UNIT = 'airlock-demo-job.service';
const JOB_TAG = 'airlock-demo-job';
const TIMER = 'airlock-demo.timer';
const TIMER_FILE = `/etc/systemd/system/${TIMER}`;
const WANTS_LINK = `/etc/systemd/system/timers.target.wants/${TIMER}`;

async function systemctl(box: SandboxView, ...args: string[]): Promise<string> {
  return (await box.run(SYSTEMCTL, args)).stdout.trim();
}
/** "644 root:root" */
const modeOwner = async (box: SandboxView, path: string) => (await box.run('/usr/bin/stat', ['-c', '%a %U:%G', '--', path])).stdout.trim();

async function waitFor(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) assert.fail(`timed out after ${ms / 1000}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The journal entries logger wrote with this tag (the cron probe's by default): what it logged and as which uid. */
async function probeRuns(box: SandboxView, tag = PROBE_TAG): Promise<Array<{ message: string; uid: string }>> {
  const r = await box.run('/usr/bin/journalctl', ['-t', tag, '--no-pager', '-o', 'json', '--output-fields=MESSAGE,_UID']);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { MESSAGE: string; _UID: string })
    .map((e) => ({ message: e.MESSAGE, uid: e._UID }));
}

export const scenarios: Scenario[] = [
  {
    action: 'ListCronJobs',
    params: {},
    setup: async (box) => {
      assert.ok(box.writeFile);
      await box.writeFile('/etc/cron.d/local-report', 'MAILTO=""\n15 4 * * * root /usr/local/sbin/local-report\n');
      assert.equal((await box.run('/usr/bin/install', ['-d', '-m', '0755', '--', '/home/carol'])).code, 0);
      assert.equal((await box.run('/usr/sbin/useradd', ['-M', '-d', '/home/carol', '--', 'carol'])).code, 0);
      await box.writeFile('/var/tmp/carol.cron', '*/5 * * * * /usr/bin/true # carol-job\n');
      assert.equal((await box.run('/usr/bin/crontab', ['-u', 'carol', '/var/tmp/carol.cron'])).code, 0);
    },
    check: async (_box, r) => {
      const text = r.output.join('\n');
      assert.match(text, /run-parts --report \/etc\/cron\.hourly/, '/etc/crontab');
      assert.match(text, /e2scrub_all_cron/, '/etc/cron.d/e2scrub_all');
      assert.match(text, /15 4 \* \* \* root \/usr\/local\/sbin\/local-report/, 'a cron.d file');
      assert.match(text, /carol-job/, "a user's crontab");
      assert.ok(!text.includes('placeholder to keep'), 'cron ignores .placeholder, and so does the listing');
      assert.match(text, /^\/etc\/cron\.daily:$/m, 'the run-parts directories are listed');
      assert.match(text, /-rwxr-xr-x 1 root root .* logrotate$/m);
    },
  },
  {
    action: 'CreateTimer',
    params: { name: 'demo', onCalendar: '*:*:0/10', unit: JOB_UNIT },
    setup: async (box) => {
      assert.ok(box.writeFile);
      await box.writeFile(`/etc/systemd/system/${JOB_UNIT}`, `[Unit]\nDescription=Airlock demo job\n[Service]\nType=oneshot\nExecStart=/usr/bin/logger -t ${JOB_TAG} ran\n`);
      assert.equal((await box.run(SYSTEMCTL, ['daemon-reload'])).code, 0);
    },
    check: async (box) => {
      assert.equal(
        await box.readFile(TIMER_FILE),
        `# Written by Airlock (CreateTimer demo); RemoveTimer removes it.\n[Unit]\nDescription=Airlock timer demo: starts ${JOB_UNIT}\n\n[Timer]\nOnCalendar=*:*:0/10\nUnit=${JOB_UNIT}\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n`,
      );
      assert.equal(await modeOwner(box, TIMER_FILE), '644 root:root');
      assert.equal(await systemctl(box, 'is-enabled', '--', TIMER), 'enabled');
      assert.equal(await systemctl(box, 'is-active', '--', TIMER), 'active');
      assert.equal((await box.run('/usr/bin/readlink', ['--', WANTS_LINK])).stdout.trim(), TIMER_FILE);
      const row = (await systemctl(box, 'list-timers', '--all', '--no-pager')).split('\n').find((l) => l.includes(TIMER));
      assert.ok(row, 'list-timers shows the timer');
      assert.match(row, new RegExp(`^\\w{3} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\w+ .* ${TIMER.replace('.', '\\.')}\\s+${JOB_UNIT.replace('.', '\\.')}$`), 'with its next elapse and what it activates');
      assert.match(await systemctl(box, 'show', '-p', 'TimersCalendar', '--value', '--', TIMER), /OnCalendar=\*-\*-\* \*:\*:00\/10/);
    },
  },
  {
    action: 'AddCronJob',
    params: { name: 'probe', schedule: '* * * * *', user: 'nobody', program: PROBE[0], args: PROBE.slice(1) },
    check: async (box) => {
      assert.equal(await box.readFile(CRON_FILE), `# Written by Airlock (AddCronJob probe); RemoveCronJob removes it.\nSHELL=/bin/sh\nPATH=/usr/sbin:/usr/bin:/sbin:/bin\n* * * * * nobody ${PROBE.join(' ')}\n`);
      assert.equal(await modeOwner(box, CRON_FILE), '644 root:root');
      assert.equal(await systemctl(box, 'is-active', '--', 'cron.service'), 'active');
      // cron reads /etc/cron.d at the top of each minute: the job runs within about a minute, as nobody (uid 65534).
      await waitFor('cron to run the job', async () => (await probeRuns(box)).length > 0, 75_000);
      assert.deepEqual((await probeRuns(box))[0], { message: 'ran', uid: '65534' });
      // cron's CMD line reaches the journal a moment after the job itself may have logged.
      const cmdLine = new RegExp(`\\(nobody\\) CMD \\(${PROBE.join(' ')}\\)`);
      const journal = async () => (await box.run('/usr/bin/journalctl', ['-u', 'cron.service', '--no-pager', '-o', 'cat'])).stdout;
      await waitFor('cron to log the job', async () => cmdLine.test(await journal()), 15_000);
      assert.match(await journal(), cmdLine);
    },
  },
  {
    action: 'RemoveCronJob',
    params: { name: 'probe' },
    check: async (box) => {
      assert.equal(await box.readFile(CRON_FILE), null);
      const before = (await probeRuns(box)).length;
      // Past the next minute boundary the job would have run again had cron kept it.
      const now = new Date();
      await new Promise((r) => setTimeout(r, (65 - now.getSeconds()) * 1000));
      assert.equal((await probeRuns(box)).length, before, 'cron no longer runs the job');
      assert.ok((await systemctl(box, 'list-units', '--all', '--no-legend', 'cron.service')).includes('active'), 'cron kept running');
    },
  },
  {
    action: 'RemoveTimer',
    params: { name: 'demo' },
    setup: async (box) => {
      // By now the timer has had more than a minute: it must have started the job (AccuracySec= defaults to 1 min).
      await waitFor('the timer to start the job', async () => (await probeRuns(box, JOB_TAG)).length > 0, 75_000);
      assert.notEqual(await systemctl(box, 'show', '-p', 'LastTriggerUSec', '--value', '--', TIMER), '');
    },
    check: async (box) => {
      assert.equal(await box.readFile(TIMER_FILE), null);
      assert.equal((await box.run('/usr/bin/readlink', ['--', WANTS_LINK])).code, 1, 'the timers.target.wants link is gone');
      assert.ok(!(await systemctl(box, 'list-timers', '--all', '--no-pager')).includes(TIMER), 'list-timers no longer shows it');
      assert.equal(await systemctl(box, 'show', '-p', 'LoadState', '--value', '--', TIMER), 'not-found');
      assert.equal(await systemctl(box, 'show', '-p', 'LoadState', '--value', '--', JOB_UNIT), 'loaded', 'the service it started stays');
    },
  },
];
