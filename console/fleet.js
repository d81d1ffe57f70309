// The page of `airlock fleet approve`: it shows the fleet plan the terminal built, asks the
// passkey for ONE assertion over its challenge, and posts it back with the one-time token of
// the URL's fragment (never sent in a URL, so no log or Referer carries it). Plain JavaScript
// under a strict CSP; every text from the hosts is set with textContent, never parsed as HTML.
// The page decides nothing: each host's daemon verifies the assertion for its own entry.
'use strict';

const $ = (id) => document.getElementById(id);
const token = location.hash.slice(1);

// fromB64u, toB64u and credentialJSON: console/webauthn.js (the console posts the same JSON).

function say(text) {
  $('status').textContent = text;
}
function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = String(text);
  row.appendChild(td);
}

async function load() {
  const r = await fetch('/plan', { headers: { 'X-Airlock-Token': token }, cache: 'no-store' });
  const body = await r.json();
  if (!r.ok) throw new Error((body.error && body.error.message) || `the terminal answered ${r.status}`);
  for (const h of body.hosts) {
    const row = document.createElement('tr');
    for (const v of [h.host, h.tx, h.risk, h.match_code, h.summary]) cell(row, v);
    $('hosts').appendChild(row);
  }
  $('plan').hidden = false;
  $('approve').hidden = false;
  say(`${body.hosts.length} hosts, RP ID ${body.rp_id}. Approve only if this is the plan your terminal shows.`);
  $('approve').addEventListener('click', () => approve(body).catch((e) => say(`Not approved: ${e.message}`)), { once: true });
}

async function approve(plan) {
  $('approve').disabled = true;
  say('Waiting for your passkey…');
  const cred = await navigator.credentials.get({ publicKey: { challenge: fromB64u(plan.challenge), rpId: plan.rp_id, userVerification: 'required', allowCredentials: [], timeout: 120000 } });
  say('Sent; each host answers for itself…');
  const r = await fetch('/assertion', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token, assertion: credentialJSON(cred) }) });
  const body = await r.json();
  if (!r.ok) throw new Error((body.error && body.error.message) || `the terminal answered ${r.status}`);
  for (const a of body.hosts) {
    const li = document.createElement('li');
    li.textContent = `${a.host}: ${a.line}`;
    $('answers').appendChild(li);
  }
  say(body.approved === body.hosts.length ? 'Every host approved. You can close this page.' : 'Some hosts refused: see each host\'s answer (and your terminal).');
  document.body.dataset.done = 'true';
}

load().catch((e) => say(`Cannot show the plan: ${e.message}`));
