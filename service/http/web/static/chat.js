// The game page's chat (docs/chat.md, M1–M9): the table's channel for the players,
// the spectators' for everyone else signed in; mute and report on every message, and
// an auditor's hide and stop. The game's live stream says when the chat moved (a
// "chat" event, passed on by live.js as "tongiaki:chat"): the page then reads what is new
// after its cursor (GET /games/{id}/chat?after=), as the viewer may read it. Without a
// live stream (refused, down, or a game that is over) it reads every two seconds.

import { api, el, me, problemText } from "./api.js";
import { _, moment } from "./i18n.js";

const POLL_MS = 2000; // while the game's stream is not live
const SAFETY_MS = 15000; // while it is: a ping lost is found this late at worst
const MAX_TEXT = 500;
const NAMES = { table: _("Table"), spectators: _("Spectators") };
const LOG_LABELS = { table: _("Table chat"), spectators: _("Spectators chat") };

/** A server time as the reader's local time of day. */
function clock(iso) {
  return moment(iso, { hour: "2-digit", minute: "2-digit" });
}

/**
 * Mount the chat panel of ``gameId`` right after ``sibling`` (a section of the game
 * page). Returns {refresh}, to ask for what is new at once.
 */
export function mountChat(sibling, gameId) {
  const host = el("section", { id: "chat-panel", class: "chat-panel", "aria-label": _("Chat") });
  sibling.after(host);
  const state = { after: 0, page: null, lists: {}, status: null, muted: new Set(), timer: null };
  let live = false;
  let reading = null; // the read under way
  let again = false; // something moved while it ran: read once more after it

  function line(m) {
    const account = me();
    const mine = account && m.author === account.account_id;
    const auditor = state.page?.auditor;
    const body = m.hidden
      ? el("span", { class: "chat-hidden" }, _("hidden by an arbiter: {reason}", { reason: m.hidden.reason }), auditor && m.text !== null ? el("s", { class: "muted" }, ` ${m.text}`) : null)
      : el("span", { class: "chat-text" }, m.text);
    const act = (label, aria, what, onclick) => el("button", { type: "button", class: `link chat-${what}`, "aria-label": aria, onclick }, label);
    return el(
      "li",
      { class: "chat-message", "data-seq": String(m.seq), "data-author": m.author },
      el("time", { datetime: m.at, class: "muted" }, clock(m.at)),
      " ",
      el("strong", { class: "chat-author" }, m.author_name),
      ": ",
      body,
      " ",
      !mine ? el("button", { type: "button", class: "link chat-mute", "aria-label": _("Mute {name}", { name: m.author_name }), onclick: () => mute(m.author) }, _("Mute")) : null,
      !mine && !m.hidden && !m.reported ? act(_("Report"), _("Report {name}'s message", { name: m.author_name }), "report", () => report(m)) : null,
      m.reported ? el("span", { class: "muted chat-reported" }, " ", _("reported")) : null,
      auditor && !m.hidden ? act(_("Hide"), _("Hide {name}'s message", { name: m.author_name }), "hide", () => hide(m)) : null,
      auditor && !mine ? el("button", { type: "button", class: "link chat-stop", "aria-label": _("Stop {name} from chatting", { name: m.author_name }), onclick: () => stop(m) }, _("Stop")) : null,
    );
  }

  function say(text, kind = "error") {
    if (state.status) {
      state.status.textContent = text;
      state.status.className = `chat-status ${kind}`;
    }
  }

  function skeleton(page) {
    state.lists = {};
    const account = me();
    const sections = page.channels.map((channel) => {
      const list = el("ul", { class: "chat-log", id: `chat-${channel}`, role: "log", "aria-live": "polite", "aria-label": LOG_LABELS[channel] });
      state.lists[channel] = list;
      return el("div", { class: "chat-channel", "data-channel": channel }, el("h4", {}, NAMES[channel]), list);
    });
    const input = el("input", { id: "chat-input", type: "text", maxlength: String(MAX_TEXT), autocomplete: "off" });
    const form = el(
      "form",
      { class: "chat-form", onsubmit: (e) => (e.preventDefault(), send(input)) },
      el("label", { for: "chat-input" }, page.posts_in === "table" ? _("Message to the table") : _("Message to the spectators")),
      input,
      el("button", { type: "submit", id: "chat-send" }, _("Send")),
    );
    state.status = el("p", { class: "chat-status", role: "status" });
    state.mutedBox = el("p", { class: "chat-muted muted" });
    host.replaceChildren(el("h3", {}, _("Chat")), ...sections, account ? form : null, state.status, state.mutedBox);
  }

  function showMuted() {
    const names = [...state.muted];
    state.mutedBox.replaceChildren(
      ...(names.length ? [_("Muted:"), " "] : []),
      ...names.map((id) => el("button", { type: "button", class: "link chat-unmute", "aria-label": _("Unmute {name}", { name: id }), onclick: () => unmute(id) }, _("{name} (unmute)", { name: id }))),
    );
  }

  function place(m) {
    const list = state.lists[m.channel];
    if (!list) return;
    const old = list.querySelector(`[data-seq="${m.seq}"]`);
    if (old) old.replaceWith(line(m));
    else list.append(line(m));
  }

  async function refresh() {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        await read();
      } while (again);
    })();
    try {
      await reading;
    } finally {
      reading = null;
    }
  }

  async function read() {
    if (!me()) {
      host.replaceChildren(el("h3", {}, _("Chat")), el("p", { class: "muted" }, _("Sign in to chat.")));
      return;
    }
    for (let pages = 0; pages < 20; pages += 1) {
      const r = await api("GET", `/games/${gameId}/chat?after=${state.after}`);
      if (!r.ok) {
        if (!state.page) host.replaceChildren(el("h3", {}, _("Chat")), el("p", { class: "muted" }, problemText(r.data)));
        return;
      }
      if (!state.page || state.page.channels.join() !== r.data.channels.join()) skeleton(r.data);
      state.page = r.data;
      state.muted = new Set(r.data.muted);
      showMuted();
      r.data.messages.forEach(place);
      r.data.hidden.forEach(place);
      state.after = r.data.next_after;
      if (!r.data.has_more) return;
    }
  }

  async function send(input) {
    const text = input.value.trim();
    if (!text) return;
    const r = await api("POST", `/games/${gameId}/chat`, { channel: state.page.posts_in, text });
    if (!r.ok) return say(problemText(r.data));
    input.value = "";
    say("");
    await refresh();
  }

  async function mute(author) {
    const r = await api("POST", `/games/${gameId}/chat/mutes`, { account_id: author });
    if (!r.ok) return say(problemText(r.data));
    for (const list of Object.values(state.lists)) list.querySelectorAll(`[data-author="${author}"]`).forEach((n) => n.remove());
    state.muted = new Set(r.data.muted);
    showMuted();
    say(_("Muted: you no longer see their messages."), "info");
  }

  async function unmute(author) {
    const r = await api("DELETE", `/games/${gameId}/chat/mutes/${author}`);
    if (!r.ok) return say(problemText(r.data));
    state.after = 0; // their messages come back: read the chat again
    state.page = null;
    await refresh();
  }

  async function report(m) {
    const reason = window.prompt(_("Why report this message? (optional)"), "");
    if (reason === null) return;
    const r = await api("POST", `/games/${gameId}/chat/${m.seq}/report`, { reason });
    if (!r.ok) return say(problemText(r.data));
    place({ ...m, reported: true });
    say(_("Reported to the auditors."), "info");
  }

  async function hide(m) {
    const reason = window.prompt(_("Why hide this message? Readers see the reason."), "");
    if (!reason) return;
    const r = await api("POST", `/games/${gameId}/chat/${m.seq}/hide`, { reason });
    if (!r.ok) return say(problemText(r.data));
    place(r.data);
  }

  async function stop(m) {
    const reason = window.prompt(_("Why stop {name} from chatting (every game)?", { name: m.author_name }), "");
    if (!reason) return;
    const r = await api("POST", "/chat/stops", { account_id: m.author, reason });
    if (!r.ok) return say(problemText(r.data));
    say(_("{name} may not chat any more.", { name: m.author_name }), "info");
  }

  async function tick() {
    if (!document.hidden) await refresh();
    state.timer = setTimeout(tick, live ? SAFETY_MS : POLL_MS);
  }

  window.addEventListener("tongiaki:chat", (e) => {
    let seq = Infinity;
    try {
      seq = Number(JSON.parse(e.detail).seq);
    } catch {
      // a ping without its seq: read anyway
    }
    if (!(seq <= state.after)) refresh(); // a ping of what this page read already: nothing new
  });
  window.addEventListener("tongiaki:live", (e) => {
    const was = live;
    live = e.detail === "live";
    if (was && !live) {
      clearTimeout(state.timer); // poll at once, and often, while the stream is away
      tick();
    }
  });
  tick();
  return { refresh };
}
