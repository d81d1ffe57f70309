/**
 * The policy `airlock install` puts at /etc/airlock/policy.toml when there is none: every
 * setting at its built-in default, and an example of each kind of entry, commented out.
 * So the file means exactly what no file means (test/unit/example-policy.test.ts parses it
 * with the daemon's parser), and a person edits it by uncommenting a line. Prose lines
 * start with "# ", examples with "#" and no space (the test uncomments those and parses them too).
 */
export const EXAMPLE_POLICY = `# Airlock policy: what the daemon may approve by itself, and what it must ask for.
# As installed it means exactly the built-in default. After editing it:
#   sudo airlock policy check --file /etc/airlock/policy.toml   # what it means, with warnings
#   sudo airlock policy reload                                  # the daemon reads it again
# Keep it owned by root and writable by root only: the daemon refuses it otherwise.
# The signed log records the digest (sha256) of the policy in force.

# Low-risk reads declared non-sensitive are approved by the daemon ("auto"),
# or every read waits for a person ("ask").
reads = "auto"

# Users who propose only: their requests are never approved by a rule, and wait in
# \`airlock inbox\` for a person to run them (a cron job's or a CI runner's account).
unattended = []
#unattended = ["ci-runner"]

[approval]
# From which risk up an approver types their authenticator code: "high" or "medium".
second_factor_from = "high"
# How many different persons approve a High change: 1, or 2 (the receipt comes with the second).
high = 1
#high = 2

[risk]
# Raise an action's risk (never lower it): higher risk needs a higher role to ask, and
# an approver with that role.
#CreateGroup = "high"

[masking]
# Besides secrets, show these as keyed pseudonyms (stable on this host): "email", "ip", "hostname".
pseudonyms = []
#pseudonyms = ["email", "ip", "hostname"]

[notify]
# Tell someone when a request waits for approval: a program (an argv, no shell; the
# notification as JSON on stdin), a webhook (a JSON POST) and/or an ntfy topic (a push to
# your phone; a tap opens the change in the web console: docs/console.md).
#command = ["/usr/bin/logger", "-t", "airlock"]
#webhook = "https://chat.example.org/hooks/airlock"
#ntfy = "https://ntfy.example.org/airlock-8f3k2q"

[audit]
# Signed tree heads of the log go to the local append-only file, soon after each approval
# and outcome, and on this schedule when the log grew. Copies that leave the host are
# what show a cut or rewritten log: a syslog collector (tls:// verifies its certificate),
# witnesses that cosign each head (\`airlock witness\`), a PostgreSQL table elsewhere
# (give its role INSERT and SELECT only; a password goes in root's ~/.pgpass, not here).
checkpoint_interval_seconds = 60
#checkpoint_interval_seconds = 30
#syslog = "tls://logs.example.org:6514"
#syslog_ca = "/etc/airlock/syslog-ca.pem"
witnesses = []
#witnesses = [{ url = "https://witness.example.org/", key = "witness.example.org+d911b8da+BIqI4910CfGV/VLbLTy6XXLKZwm/HZQSG/N0iAG0D29c" }]
#postgres = "postgres://airlock_host@db.example.org/audit"

[store]
# What the store keeps, and for how long (durations: 30s, 15m, 12h, 7d). A finished
# transaction's preview, parameters and result are compacted after keep_details to what
# history and audits need (action, parameters' digest, risk, who, when, outcome, preview
# digest); \`airlock history\` lists it until keep_history. The signed log moves to the
# archive directory in verifiable segments (each archival is a signed entry; verify the
# whole history with \`airlock audit verify --archive DIR\`); keep copies off the host.
# Under min_free_mb free in the state directory new previews are refused, and reserve_mb
# stays set aside for approved executes and the log's own writes.
keep_details = "7d"
#keep_details = "1d"
keep_history = "90d"
#keep_history = "30d"
archive_segment_entries = 100000
#archive_segment_entries = 50000
archive_after = "30d"
#archive_after = "7d"
#archive_dir = "/srv/airlock-archive"
min_free_mb = 256
#min_free_mb = 512
reserve_mb = 64
#reserve_mb = 128

# Rules: the daemon approves by itself requests for one action whose parameters match
# exactly (a literal, or a glob whose * and ? never match "/"), at most once per cooldown
# and daily_cap times a day. Medium risk at most: High always waits for a person.
#[[rule]]
#id = "restart-nginx"
#action = "RestartService"
#params = { unit = "nginx.service" }
#cooldown_minutes = 10
#daily_cap = 6
`;
