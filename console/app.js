// The Airlock console's page. Plain browser JavaScript, no framework, loaded under a strict
// CSP (no inline script or style). Every text that came from the host or an agent (summaries,
// previews, names, reasons, error messages) is set with textContent and never parsed as HTML.
// The page decides nothing: the daemon verifies every sign-in, approval and denial.
'use strict';

const $ = (id) => document.getElementById(id);
const VIEWS = ['loading', 'signin', 'inbox', 'grants', 'tx', 'register'];
let csrf = '';
let me = null;
let inboxTimer = null;

// ---- base64url <-> bytes and a credential's JSON: console/webauthn.js ----
const withIds = (list) => (list || []).map((c) => Object.assign({}, c, { id: fromB64u(c.id) }));

function requestOptions(json) {
  if (window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  return Object.assign({}, json, { challenge: fromB64u(json.challenge), allowCredentials: withIds(json.allowCredentials) });
}
function creationOptions(json) {
  if (window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  return Object.assign({}, json, {
    challenge: fromB64u(json.challenge),
    user: Object.assign({}, json.user, { id: fromB64u(json.user.id) }),
    excludeCredentials: withIds(json.excludeCredentials),
  });
}
const getAssertion = async (options) => credentialJSON(await navigator.credentials.get({ publicKey: requestOptions(options) }));

// ---- the API ----
class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `the console answered ${status}`);
    this.status = status;
    this.code = e.code || '';
    this.hint = e.hint || '';
  }
}
async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (method === 'POST') {
    init.headers['Content-Type'] = 'application/json';
    init.headers['X-Airlock-CSRF'] = csrf;
    init.body = JSON.stringify(body || {});
  }
  const res = await fetch(path, init);
  let data = null;
  try {
    data = await res.json();
  } catch (_) {
    data = null;
  }
  if (!res.ok) {
    if (res.status === 401 && me) {
      me = null;
      await loadMe();
    }
    throw new ApiError(res.status, data);
  }
  return data;
}

// ---- what the page shows ----
function show(view) {
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  if (view !== 'inbox' && inboxTimer) {
    clearInterval(inboxTimer);
    inboxTimer = null;
  }
}
function say(el, text) {
  $(el).textContent = text;
  $(el).hidden = !text;
}
function clearMessages() {
  say('error', '');
  say('notice', '');
}
function fail(e) {
  if (e && e.name === 'NotAllowedError') return say('error', 'The passkey prompt was closed or timed out: nothing was sent.');
  const text = e instanceof ApiError ? `${e.message}${e.hint ? ` (${e.hint})` : ''}` : String((e && e.message) || e);
  say('error', text);
}
function busy(button, on) {
  button.disabled = on;
  button.setAttribute('aria-busy', on ? 'true' : 'false');
}
function age(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}
function expiresIn(iso) {
  const s = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (s <= 0) return 'expired';
  return s < 120 ? `expires in ${s} s` : `expires in ${Math.round(s / 60)} min`;
}
function riskBadge(el, risk) {
  el.textContent = risk;
  el.className = `risk risk-${['low', 'medium', 'high'].includes(risk) ? risk : 'other'}`;
}

async function loadMe() {
  me = await api('GET', '/api/me');
  csrf = me.csrf;
  $('who').textContent = me.signed_in ? me.approver : '';
  $('sign-out').hidden = !me.signed_in;
  if (!me.signed_in) me = null;
}

// ---- sign in ----
async function signIn() {
  clearMessages();
  const button = $('signin-button');
  busy(button, true);
  try {
    const { challenge_id, options } = await api('POST', '/api/sign-in/options', {});
    const assertion = await getAssertion(options);
    const r = await api('POST', '/api/sign-in', { challenge_id, assertion });
    csrf = r.csrf;
    await loadMe();
    await route();
  } catch (e) {
    fail(e);
  } finally {
    busy(button, false);
  }
}

// ---- the list ----
async function inbox() {
  const list = await api('GET', '/api/inbox');
  const ul = $('inbox-list');
  ul.replaceChildren();
  for (const t of list) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `/tx/${encodeURIComponent(t.transaction_id)}`;
    a.className = 'item';
    const top = document.createElement('span');
    top.className = 'item-top';
    const risk = document.createElement('span');
    riskBadge(risk, t.risk);
    const action = document.createElement('span');
    action.className = 'item-action';
    action.textContent = t.action_name;
    const when = document.createElement('span');
    when.className = 'muted small';
    when.textContent = age(t.created_at);
    top.append(risk, action, when);
    const summary = document.createElement('span');
    summary.className = 'item-summary';
    summary.textContent = t.summary;
    const by = document.createElement('span');
    by.className = 'muted small';
    by.textContent = `requested by ${t.requested_by}`;
    a.append(top, summary, by);
    li.append(a);
    ul.append(li);
  }
  $('inbox-empty').hidden = list.length > 0;
  await sessions();
}

/** One grant in a list (a session's, or a folder's): its name, its lines of text, and its Revoke button (an expired grant's file is removed that way too). */
function grantItem(name, lines, id, onRevoke) {
  const li = document.createElement('li');
  li.className = 'grant';
  const what = document.createElement('span');
  what.className = 'grant-what';
  const head = document.createElement('span');
  head.className = 'item-action';
  head.textContent = name;
  what.append(head);
  for (const [text, cls] of lines) {
    const line = document.createElement('span');
    line.className = cls;
    line.textContent = text;
    what.append(line);
  }
  const revoke = document.createElement('button');
  revoke.type = 'button';
  revoke.className = 'danger';
  revoke.textContent = 'Revoke';
  revoke.dataset.grant = id;
  revoke.addEventListener('click', () => onRevoke(revoke));
  li.append(what, revoke);
  return li;
}

// ---- session grants in force (the "this session" lane) ----
async function sessions() {
  let grants;
  try {
    grants = (await api('GET', '/api/sessions')).grants;
  } catch (_) {
    grants = []; // a person the daemon shows none to sees no section
  }
  const ul = $('sessions-list');
  ul.replaceChildren();
  for (const g of grants) {
    const who = `for ${g.requester}, granted by ${g.approver}, until ${new Date(g.until).toLocaleTimeString()}; used ${g.uses} time(s)`;
    ul.append(grantItem(`${g.action_name} ${JSON.stringify(g.params)}`, [[who, 'muted small']], g.grant_id, (button) => revokeSession(button, g.grant_id)));
  }
  $('sessions').hidden = grants.length === 0;
}
async function revokeSession(button, id) {
  clearMessages();
  busy(button, true);
  try {
    const r = await api('POST', `/api/sessions/${encodeURIComponent(id)}/revoke`, {});
    say('notice', `Revoked: it had approved ${r.uses} request(s). Identical requests wait for a person again.`);
    await sessions();
  } catch (e) {
    fail(e);
    busy(button, false);
  }
}

// ---- grants for configuration edits: the one request a person makes here ----
// The list is ListConfigGrants, run as the person (a read the policy approves); a grant or a
// revocation is previewed here and opened as any transaction: read, approved with the passkey, run.
async function grantsView() {
  const g = await api('GET', '/api/grants');
  const checker = $('grant-checker');
  if (!checker.options.length) for (const c of g.checkers) checker.append(new Option(c, c));
  const length = $('grant-for');
  if (!length.options.length) for (const l of g.lengths) length.append(new Option(l, l, l === '8h', l === '8h'));
  const ul = $('grants-list');
  ul.replaceChildren();
  if (g.grants === null) {
    say('notice', `Listing the grants waits for a person under this policy: ${g.waiting}.`);
    return;
  }
  for (const r of g.grants) {
    const then = r.follow_up ? `, then ${r.follow_up.verb} ${r.follow_up.unit}` : '';
    const lines = [[`${r.account} may propose edits under ${r.folder}, checked by ${r.checker}${then}; its edits are ${r.edit_risk}`, ''], [r.expired ? `expired ${r.expires_at}` : `until ${r.expires_at}`, 'muted small']];
    ul.append(grantItem(r.name, lines, r.name, (button) => requestHere(button, `/api/grants/${encodeURIComponent(r.name)}/revoke`, {})));
  }
  $('grants-empty').hidden = g.grants.length > 0;
}
/** Previews a grant or a revocation as the person, then opens it to be read and approved. */
async function requestHere(button, path, body) {
  clearMessages();
  busy(button, true);
  try {
    const r = await api('POST', path, body);
    location.assign(`/tx/${encodeURIComponent(r.transaction_id)}`);
  } catch (e) {
    fail(e);
    busy(button, false);
  }
}
function submitGrant(event) {
  event.preventDefault();
  const unit = $('grant-unit').value.trim();
  const body = { name: $('grant-name').value.trim(), account: $('grant-account').value.trim(), folder: $('grant-folder').value.trim(), checker: $('grant-checker').value, for: $('grant-for').value };
  if (unit) Object.assign(body, { unit, follow_up: $('grant-follow-up').value });
  return requestHere($('grant-button'), '/api/grants', body);
}

// ---- one transaction ----
let current = null;
async function transaction(id) {
  // Nothing of another transaction stays on screen while this one loads: no old preview beside a new Approve.
  current = null;
  $('tx-decide').hidden = true;
  $('tx-deny').hidden = true;
  $('tx-run').hidden = true;
  for (const f of ['tx-summary', 'tx-risk', 'tx-action', 'tx-by', 'tx-state', 'tx-preview', 'tx-match']) $(f).textContent = '';
  current = await api('GET', `/api/tx/${encodeURIComponent(id)}`);
  const t = current;
  $('tx-summary').textContent = t.summary;
  riskBadge($('tx-risk'), t.risk);
  $('tx-action').textContent = t.action_name;
  $('tx-by').textContent = t.requested_by;
  $('tx-state').textContent = t.state === 'Previewed' ? `waiting, ${expiresIn(t.expires_at)}` : t.state;
  $('tx-preview').textContent = t.text;
  $('tx-match').textContent = t.match_code || '';
  $('tx-decide').hidden = !(t.may_approve && t.match_code);
  $('tx-run').hidden = !t.runnable;
  $('tx-session').hidden = !t.session_allowed;
  $('session-minutes').value = '';
  $('tx-deny').hidden = t.state !== 'Previewed';
  const why = t.refusal ? `${t.refusal.message}${t.refusal.hint ? ` (${t.refusal.hint})` : ''}` : '';
  const denied = t.denied_by ? `Denied by ${t.denied_by}${t.deny_reason ? `: ${t.deny_reason}` : ''}` : '';
  const others = t.approvals && t.approvals.needed > 1 ? `${t.approvals.needed} persons must approve this; approved so far by: ${t.approvals.by.join(', ') || 'nobody'}.` : '';
  say('tx-refusal', [t.may_approve ? '' : denied || why, others].filter(Boolean).join(' '));
}

/** One decision on the transaction shown: its button busy meanwhile, a failure shown. */
async function withCurrent(buttonId, work) {
  clearMessages();
  const t = current;
  if (!t) return;
  const button = $(buttonId);
  busy(button, true);
  try {
    await work(t);
  } catch (e) {
    fail(e);
  } finally {
    busy(button, false);
  }
}

function approve() {
  return withCurrent('approve-button', async (t) => {
    // A fresh assertion over this transaction's own challenge: it approves this preview and nothing else
    // (and, when a session is chosen, its length: the daemon derives another challenge for it).
    const minutes = t.session_allowed ? $('session-minutes').value : '';
    const query = minutes ? `?session_minutes=${encodeURIComponent(minutes)}` : '';
    const { options, preview_digest } = await api('GET', `/api/tx/${encodeURIComponent(t.transaction_id)}/approval-options${query}`);
    if (preview_digest !== t.preview_digest) throw new Error('The preview changed since this page showed it: reload and read it again.');
    const assertion = await getAssertion(options);
    const body = minutes ? { preview_digest, assertion, session_minutes: Number(minutes) } : { preview_digest, assertion };
    const grant = await api('POST', `/api/tx/${encodeURIComponent(t.transaction_id)}/approve`, body);
    await transaction(t.transaction_id);
    // The person's own request made here (a grant): approved, it runs at once, as `airlock grant` runs it.
    if (current && current.runnable) return await run();
    if (grant.recorded) {
      const a = grant.approvals;
      say('notice', `Your approval is recorded (${a.have} of ${a.needed} persons): it waits for another person's.`);
    } else if (grant.session_grant) {
      say('notice', `Approved by ${grant.approved_by || me.approver}. Identical requests of ${t.requested_by} are approved until ${new Date(grant.session_grant.until).toLocaleTimeString()} (revoke it from the list of requests, or with airlock sessions revoke ${grant.session_grant.grant_id}).`);
    } else say('notice', `Approved by ${grant.approved_by || me.approver}. The agent can now run it.`);
  });
}

/** Runs the person's own approved request (a grant made here); the daemon runs it only if it is the change approved. */
function run() {
  return withCurrent('run-button', async (t) => {
    const r = await api('POST', `/api/tx/${encodeURIComponent(t.transaction_id)}/run`, {});
    await transaction(t.transaction_id);
    if (r.state === 'Succeeded') say('notice', `Done: ${r.summary}`);
    else say('error', `${r.state}: ${r.summary}${r.error ? ` (${r.error.message})` : ''}`);
  });
}

function deny() {
  return withCurrent('deny-button', async (t) => {
    await api('POST', `/api/tx/${encodeURIComponent(t.transaction_id)}/deny`, { reason: $('deny-reason').value });
    await transaction(t.transaction_id);
    say('notice', 'Denied. The agent is told, with your reason.');
  });
}

// ---- registration, begun at the person's terminal ----
// A new passkey is created here (navigator.credentials.create); a passkey of the person's registered
// on another host (`airlock passkey add --existing FILE`) signs this registration's challenge instead
// (navigator.credentials.get, that credential alone): the daemon verifies it with the public key the
// terminal brought, and the person's factor on this host finishes it at their terminal.
let registration = null;
async function registerView(id) {
  registration = Object.assign(await api('GET', `/api/registration/${encodeURIComponent(id)}`), { id });
  const r = registration;
  $('reg-approver').textContent = r.approver;
  $('reg-check').textContent = r.check;
  $('reg-proof').hidden = !r.proof;
  $('reg-title').textContent = r.existing ? 'Add a passkey from another host' : 'Add a passkey';
  $('reg-button').textContent = r.existing ? 'Sign with that passkey' : 'Create the passkey';
  const p = r.existing_passkey;
  say('reg-existing', r.existing ? `Sign with the passkey you registered on another host${p ? `: ${p.name} (${p.passkey_id})` : ''}. Your browser offers that passkey alone; nothing new is made.` : '');
}
async function register() {
  clearMessages();
  const r = registration;
  const button = $('reg-button');
  busy(button, true);
  try {
    let body;
    if (r.existing) body = { existing_assertion: await getAssertion(r.options) };
    else body = { response: credentialJSON(await navigator.credentials.create({ publicKey: creationOptions(r.options) })) };
    if (r.proof) body.assertion = await getAssertion(r.proof);
    await api('POST', `/api/registration/${encodeURIComponent(r.id)}`, body);
    button.hidden = true;
    say('notice', r.proof ? 'Done: your terminal finishes the registration.' : 'Done: now type the code from your authenticator app at your terminal.');
  } catch (e) {
    fail(e);
  } finally {
    busy(button, false);
  }
}

// ---- routing: /register#ID, /tx/ID (a notification's link), / ----
async function route() {
  clearMessages();
  try {
    if (location.pathname === '/register') {
      show('register');
      return await registerView(location.hash.slice(1));
    }
    if (!me) return show('signin');
    if (location.pathname === '/grants') {
      show('grants');
      return await grantsView();
    }
    const m = /^\/tx\/(tx_[0-9a-f]+)$/.exec(location.pathname);
    if (m) {
      show('tx');
      return await transaction(m[1]);
    }
    show('inbox');
    await inbox();
    if (!inboxTimer) inboxTimer = setInterval(() => inbox().catch(fail), 5000);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401 && location.pathname !== '/register') show('signin');
    fail(e);
  }
}

async function signOut() {
  try {
    await api('POST', '/api/sign-out', {});
  } catch (_) {
    // Signed out here whatever the daemon said.
  }
  me = null;
  location.assign('/');
}

document.addEventListener('DOMContentLoaded', async () => {
  $('signin-button').addEventListener('click', signIn);
  $('approve-button').addEventListener('click', approve);
  $('deny-button').addEventListener('click', deny);
  $('run-button').addEventListener('click', run);
  $('grant-form').addEventListener('submit', submitGrant);
  $('reg-button').addEventListener('click', register);
  $('sign-out').addEventListener('click', signOut);
  window.addEventListener('hashchange', route);
  try {
    await loadMe();
  } catch (e) {
    show('signin');
    return fail(e);
  }
  await route();
});
