// The JSON API, the signed-in account and small helpers.
//
// A browser is signed in by its session cookie (HttpOnly: never readable here); this
// browser keeps only who it is and the session's CSRF token, sent with every write
// (docs/accounts.md). A token kept by an earlier version of the pages is exchanged for a
// session once, then forgotten.

import { _, number } from "./i18n.js";

const KEY = "tongiaki.account";
const SAFE = new Set(["GET", "HEAD"]);

export function me() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || null;
  } catch {
    return null;
  }
}

/** Remember who this browser is signed in as (never a token). */
export function signIn(account) {
  const { account_id, name, kind, csrf_token } = account;
  localStorage.setItem(KEY, JSON.stringify({ account_id, name, kind, csrf_token }));
}

/** Forget the sign-in here; with ``everywhere`` false, the server ends this session too. */
export async function signOut(local = false) {
  const account = me();
  if (!local && account?.csrf_token) await api("DELETE", "/sessions/current");
  localStorage.removeItem(KEY);
}

let exchanging = null;

/** The account, once a token an earlier page kept here is exchanged for a session. */
async function session() {
  const account = me();
  if (!account?.token) return account;
  exchanging ||= (async () => {
    const r = await send("POST", "/sessions", undefined, { Authorization: `Bearer ${account.token}` });
    if (r.ok) signIn(r.data);
    else if (r.status === 401) localStorage.removeItem(KEY);
    exchanging = null;
    return me();
  })();
  return exchanging;
}

async function send(method, path, body, headers) {
  const h = { Accept: "application/json", ...headers };
  if (body !== undefined) h["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers: h,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, data: { code: "offline", detail: String(error) } };
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

/** Call /api/v1; resolves to {ok, status, data}; problems carry code, detail, rule. */
export async function api(method, path, body, headers = {}) {
  const account = await session();
  const h = { ...headers };
  if (account?.csrf_token && !SAFE.has(method) && !h.Authorization) h["X-CSRF-Token"] = account.csrf_token;
  const r = await send(method, path, body, h);
  // the session this request was sent with has ended: forget it, unless this browser
  // signed in anew meanwhile (a link or a passkey replaces the session while a request
  // sent with the old one is still on its way: that one's 401 is not this sign-in's)
  const now = me();
  if (r.status === 401 && r.data?.code === "session_ended" && !h.Authorization && now?.csrf_token === account?.csrf_token) localStorage.removeItem(KEY);
  return r;
}

/** Sign this browser in with a token (a program's, or an operator's for an auditor). */
export async function signInWithToken(token) {
  const r = await send("POST", "/sessions", undefined, { Authorization: `Bearer ${token.trim()}` });
  if (r.ok) signIn(r.data);
  return r;
}

// What a refusal means, in a player's words (the code is for programs).
const PROBLEMS = {
  not_your_turn: _("It is not your turn."),
  not_your_seat: _("That is not one of your colours."),
  not_seated: _("You have no seat at this table."),
  stale_version: _("The game moved on while you were choosing; here is the new position."),
  unexpected_command: _("That move is not possible right now."),
  game_over: _("The game is over."),
  beach_full: _("That beach has no free slot."),
  beach_not_full: _("Only a full beach emigrates."),
  endless_departure: _("That route can never end the chain reaction: choose another departure."),
  repeated_departure: _("That exact departure was already made from this very board this turn."),
  not_enough_players: _("At least two players are needed to start."),
  colour_taken: _("Somebody already plays that colour."),
  table_full: _("This table is full."),
  already_seated: _("You already have a seat at this table."),
  other_colours_present: _("Only an island with none but your boats can become royal."),
  two_royal_islands: _("Each colour founds at most two royal islands."),
  tonga_never_royal: _("Tonga can never become royal."),
  no_token: _("Sign in first."),
  bad_token: _("That token names no account, or was revoked."),
  session_ended: _("This browser's sign-in ended: sign in again."),
  csrf_failed: _("This page is out of date: reload it."),
  link_used: _("This sign-in link was used already: ask for a new one."),
  link_expired: _("This sign-in link is too old (15 minutes): ask for a new one."),
  link_other_browser: _("Open the link in the browser where you asked for it."),
  link_unknown: _("This link is not one the server sent (cut short in the mail?)."),
  unknown_passkey: _("That passkey belongs to no account here (was it removed?)."),
  passkey_refused: _("The passkey was refused."),
  challenge_used: _("That passkey answer was used already: try again."),
  challenge_expired: _("The passkey prompt took too long: try again."),
  email_unavailable: _("This server sends no mail: sign in with a passkey or a token."),
  account_disabled: _("An operator disabled this account."),
  rate_limited: _("Too many requests: wait a moment."),
  game_paused: _("The game is paused while an auditor looks at a dispute."),
  not_a_player: _("Only a player seated in this game can do that."),
  dispute_window_closed: _("The game ended too long ago to open a dispute."),
  dispute_closed: _("This dispute is closed."),
  too_many_streams: _("The server is busy; live updates come by polling for now."),
  chat_channel_closed: _("That chat channel is not yours."),
  chat_text: _("A message is one line of 1 to 500 characters."),
  chat_too_fast: _("You are chatting too fast: wait a few seconds."),
  chat_already_reported: _("You reported this message already."),
  chat_message_hidden: _("That message is hidden already."),
  database_unavailable: _("The server cannot reach its database; try again in a moment."),
  offline: _("No connection to the server."),
};
// what the game was waiting for when a move came that did not answer it (R25)
const WAITING_FOR = {
  landing: _("a fleet to land"),
  tile_placement: _("a drawn tile to be placed"),
  turn_start: _("a turn to begin"),
  choose_emigration: _("an emigration to be chosen"),
  colonist_placement: _("a colonist to be placed"),
  setup_placement: _("a starting boat on Tonga"),
  open: _("players to join"),
};

/** A problem as one line a player understands, with the rule it cites. */
export function problemText(data) {
  if (!data) return _("Something went wrong.");
  return data.rule ? _("{problem} (rule {rule})", { problem: problemWords(data), rule: data.rule }) : problemWords(data);
}

/** A problem's field errors in words: "text: Length must be between 1 and 500". */
function fieldErrors(errors, prefix = "") {
  if (Array.isArray(errors)) return errors.map((e) => (typeof e === "string" ? `${prefix}${e}` : fieldErrors(e, prefix))).join("; ");
  if (errors && typeof errors === "object") return Object.entries(errors).map(([k, v]) => fieldErrors(v, `${k}: `)).join("; ");
  return `${prefix}${errors}`;
}

/** The same without the rule (shown beside it as a link). */
export function problemWords(data) {
  if (!data) return _("Something went wrong.");
  const words = PROBLEMS[data.code];
  if (data.code === "invalid_fields" && data.errors) {
    const errors = fieldErrors(data.errors);
    const said = words || data.detail;
    return said ? _("{problem}: {errors}.", { problem: said.replace(/\.$/, ""), errors }) : _("Some fields are invalid: {errors}.", { errors });
  }
  if (!words) return cap(data.detail || data.title || _("Refused"));
  const awaited = data.code === "unexpected_command" && /awaits (\w+)/.exec(data.detail || "")?.[1];
  if (awaited) return _("That move is not possible right now: the game is waiting for {awaited}.", { awaited: WAITING_FOR[awaited] || awaited.replace(/_/g, " ") });
  return words;
}

/** A link to the rule a problem cites (docs/rules.md served at /docs/rules). */
export function ruleLink(rule) {
  const docs = { D: "disputes", C: "clocks", M: "chat", N: "notes", T: "table", G: "ratings", V: "vacation", I: "invitations", RM: "invitations", P: "profiles", Q: "profiles", L: "leagues" };
  const doc = docs[rule.replace(/[0-9]+$/, "")] || "rules";
  return el("a", { href: `/docs/${doc}#${rule}`, target: "_blank", rel: "noopener" }, _("rule {rule}", { rule }));
}

/** A translated text with nodes in some of its {fields}, as children for el():
 * ``withNodes(_("See {link}."), { link: el("a", …) })``. */
export function withNodes(text, nodes) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((part, i) => (i % 2 === 0 ? part : part in nodes ? nodes[part] : `{${part}}`)).filter((part) => part !== "");
}

export function toast(text, kind = "info") {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.className = `show ${kind}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.className = ""), kind === "error" ? 8000 : 3000);
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** The name this browser shows for its account, after a change of name (docs/profiles.md, P3). */
export function renamed(name) {
  const account = me();
  if (account) localStorage.setItem(KEY, JSON.stringify({ ...account, name }));
}

let queued = { at: 0, data: null, asking: null };

/** "My move (N)": a link to the game whose decision has waited longest (docs/profiles.md, Q2);
 * asked at most every 10 seconds by a page. */
async function myMove(holder) {
  if (Date.now() - queued.at > 10000) {
    queued.asking ||= api("GET", "/me/queue?limit=1").then((r) => {
      queued = { at: Date.now(), data: r.ok ? r.data : null, asking: null };
    });
    await queued.asking;
  }
  const data = queued.data;
  if (!data) return holder.replaceChildren();
  const link = data.next
    ? el("a", { href: data.next, id: "nav-my-move", class: "my-move", title: _("The game whose decision has waited longest") }, _("My move ({count})", { count: number(data.count) }))
    : el("span", { id: "nav-my-move", class: "muted" }, _("My move ({count})", { count: number(0) }));
  holder.replaceChildren(link);
}

export function nav(gameId) {
  const links = [el("a", { href: "/" }, _("Lobby")), el("a", { href: "/leaderboard", id: "nav-leaderboard" }, _("Leaderboard")), el("a", { href: "/leagues", id: "nav-leagues" }, _("Leagues"))];
  const signed = me();
  if (signed?.kind === "player") {
    const holder = el("span", { id: "nav-queue" });
    links.push(holder, el("a", { href: `/players/${signed.account_id}`, id: "nav-profile" }, _("Profile")));
    myMove(holder);
  }
  if (signed) links.push(el("a", { href: "/account", id: "nav-account" }, _("Account")));
  if (gameId) {
    links.push(
      el("a", { href: `/games/${gameId}` }, _("Game")),
      el("a", { href: `/games/${gameId}/replay` }, _("Replay")),
      el("a", { href: `/games/${gameId}/audit` }, _("Audit")),
    );
  }
  const account = me();
  if (account?.kind === "auditor") links.push(el("a", { href: "/disputes", id: "nav-disputes" }, _("Disputes")));
  links.push(el("a", { href: "/docs/rules" }, _("Rules")));
  document.getElementById("nav").replaceChildren(...links);
  document.getElementById("me").textContent = account ? (account.kind === "auditor" ? _("Signed in as {name} (auditor)", { name: account.name }) : _("Signed in as {name}", { name: account.name })) : "";
  rememberLanguage();
}

/** The language picker's links (?lang=…: the page in that language, and the browser's
 * cookie set) go to this very place in the page as it is now (the replay's move, an
 * anchor), and also keep a signed-in account's choice, for its mails (docs/i18n.md). */
function rememberLanguage() {
  const picker = document.getElementById("languages");
  if (!picker || picker.dataset.keeps) return;
  picker.dataset.keeps = "1";
  picker.addEventListener("click", async (event) => {
    const link = event.target.closest("a[hreflang]");
    if (!link) return;
    event.preventDefault();
    if (me()) await api("PUT", "/me/language", { language: link.hreflang });
    const here = new URL(location.href);
    here.searchParams.set("lang", link.hreflang);
    location.assign(here.href);
  });
}

export const COLOURS = ["blue", "red", "green", "yellow", "orange", "purple"];
export const LETTER = { blue: "B", red: "R", green: "G", yellow: "Y", orange: "O", purple: "P" };
export const BY_LETTER = { b: "blue", r: "red", g: "green", y: "yellow", o: "orange", p: "purple" };

export function cap(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

/** A colour's name in the reader's language ("Blue", "Bleu", "Blu"). */
export function colourName(colour) {
  const names = { blue: _("Blue"), red: _("Red"), green: _("Green"), yellow: _("Yellow"), orange: _("Orange"), purple: _("Purple") };
  return names[colour] || cap(colour);
}

/** A random command id (crypto.randomUUID exists only on https and localhost). */
export function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A colour as a chip: its letter and its name (never the colour alone). */
export function colourChip(colour, text) {
  return el("span", { class: `chip colour-${colour}` }, el("b", {}, LETTER[colour]), ` ${text ?? colourName(colour)}`);
}
