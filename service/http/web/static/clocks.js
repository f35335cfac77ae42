// Turn clocks in the browser (docs/clocks.md): the time control in words, each seat's
// time left counting down live, "last move 3 h ago", and the time a move used. The
// server says what its clock read (`clock.now`); the countdown runs from there, so a
// browser whose own clock is wrong still counts the server's time.

import { el, ruleLink } from "./api.js";
import { _, moment, ngettext, number } from "./i18n.js";

export const PRESETS = [
  ["none", _("No clock"), {}],
  ["move-3600", _("1 hour per move"), { time_control: "move", move_seconds: 3600 }],
  ["move-43200", _("12 hours per move"), { time_control: "move", move_seconds: 43200 }],
  ["move-86400", _("1 day per move"), { time_control: "move", move_seconds: 86400 }],
  ["move-259200", _("3 days per move"), { time_control: "move", move_seconds: 259200 }],
  ["fischer-300-5", _("Live: 5 min + 5 s per move"), { time_control: "fischer", base_seconds: 300, increment_seconds: 5 }],
  ["fischer-900-10", _("Live: 15 min + 10 s per move"), { time_control: "fischer", base_seconds: 900, increment_seconds: 10 }],
];

function span(seconds) {
  if (!seconds) return ngettext("{n} s", "{n} s", 0);
  if (seconds % 86400 === 0) return ngettext("{n} day", "{n} days", seconds / 86400);
  if (seconds % 3600 === 0) return ngettext("{n} hour", "{n} hours", seconds / 3600);
  if (seconds % 60 === 0) return ngettext("{n} min", "{n} min", seconds / 60);
  return ngettext("{n} s", "{n} s", seconds);
}

/** "1 day per move", "5 min + 5 s", or null without a clock. */
export function controlText(tc) {
  if (!tc || tc.control === "none") return null;
  const away = Boolean(tc.vacation); // docs/vacation.md V2
  if (tc.control === "move") {
    const time = span(tc.move_seconds);
    return away ? _("{time} per move · vacation applies", { time }) : _("{time} per move", { time });
  }
  const values = { base: span(tc.base_seconds), increment: span(tc.increment_seconds) };
  if (tc.increment_seconds) return away ? _("{base} + {increment} per move · vacation applies", values) : _("{base} + {increment} per move", values);
  return away ? _("{base}, no increment · vacation applies", values) : _("{base}, no increment", values);
}

/** 2 d 3 h · 5 h 02 min · 4:07 · 0:09 */
export function leftText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return _("{d} d {h} h", { d: number(d), h: number(h) });
  if (h) return _("{h} h {m} min", { h: number(h), m: String(m).padStart(2, "0") });
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

/** "3 h ago", "just now". */
export function agoText(iso, nowMs = Date.now()) {
  if (!iso) return "";
  const s = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
  if (s < 60) return _("just now");
  if (s < 3600) return ngettext("{n} min ago", "{n} min ago", Math.floor(s / 60));
  if (s < 86400) return ngettext("{n} h ago", "{n} h ago", Math.floor(s / 3600));
  return ngettext("{n} d ago", "{n} d ago", Math.floor(s / 86400));
}

/** How long a move took, for the move list and the replay. */
export function usedText(ms) {
  if (ms >= 3600000) return leftText(ms);
  if (ms >= 60000) return _("{m} min {s} s", { m: number(Math.floor(ms / 60000)), s: number(Math.floor((ms % 60000) / 1000)) });
  return ngettext("{n} s", "{n} s", ms / 1000, { n: number(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
}

/** A seat's time left, counting down while its decision runs. */
export function timeLeft(clock, seat, fetchedAt = Date.now()) {
  const left = clock?.time_left_ms?.[String(seat)];
  if (left === undefined) return null;
  const running = clock.seat === seat && !clock.paused_at && clock.deadline;
  const attrs = { class: `time-left${running ? " running" : ""}`, "data-seat": seat };
  if (running) {
    // the server's now against this browser's: count the server's time
    attrs["data-until"] = String(fetchedAt + left);
    // "running low": the last fifth of the decision's time, at least 5 s, at most a minute
    const allowed = clock.control === "move" ? clock.move_ms : clock.left_ms?.[String(seat)] ?? left;
    attrs["data-low"] = String(Math.min(60000, Math.max(5000, allowed / 5)));
    const now = fetchedAt + left - Date.now();
    if (now < Number(attrs["data-low"])) attrs.class += " low";
    return el("span", attrs, leftText(now));
  }
  return el("span", attrs, leftText(left));
}

function tick() {
  for (const node of document.querySelectorAll(".time-left[data-until]")) {
    const left = Number(node.dataset.until) - Date.now();
    node.textContent = leftText(left);
    node.classList.toggle("low", left < Number(node.dataset.low || 60000));
  }
  for (const node of document.querySelectorAll("[data-warn-until]")) {
    node.hidden = Number(node.dataset.warnUntil) - Date.now() >= WARN_MS;
  }
}

const WARN_MS = 30000; // under this much time left, the player is told what a timeout does

/** A message's parts, its rule ids (C3, V8 …) made links: ``template`` is the message
 * before its {fields} are filled (so that no value ever becomes a link). */
function linked(template, values = {}, link = ruleLink) {
  return template
    .split(/\b([A-Z]{1,2}[0-9]+)\b/)
    .map((part, i) => (i % 2 ? link(part) : part.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (field, name) => (name in values ? String(values[name]) : field))))
    .filter((part) => part !== "");
}

/** Before a timeout (C3–C5): what happens if the player's running clock runs out, in
 * words; shown once less than 30 s are left (the ticker shows it), else null. */
export function timeoutWarning(clock, seat, fetchedAt, absentAfter) {
  const left = clock?.time_left_ms?.[String(seat)];
  if (left === undefined || clock.seat !== seat || clock.paused_at || !clock.deadline) return null;
  const until = fetchedAt + left;
  const times = absentAfter > 1 ? absentAfter : 1;
  return el(
    "p",
    { id: "timeout-warning", class: "clock-warning", role: "alert", "data-warn-until": String(until), hidden: until - Date.now() >= WARN_MS },
    linked(
      ngettext(
        "If your clock runs out, the bot plays this decision for you (C3); after one timeout it plays every decision until you take your seat back (C4, C5).",
        "If your clock runs out, the bot plays this decision for you (C3); after {n} timeouts in a row it plays every decision until you take your seat back (C4, C5).",
        times,
        { n: "{n}" },
      ),
      { n: number(times) },
    ),
  );
}

/** After a timeout (C3–C5): that the bot played for the player, what comes next and, when
 * their seat is absent, the way back (``onReclaim``); null when the bot has not played. */
export function timeoutNotice(player, absentAfter, onReclaim) {
  if (!player || !(player.bot === "absent" || player.timeouts > 0)) return null;
  if (player.bot === "absent") {
    return el(
      "section",
      { id: "timeout-notice", class: "banner warning", role: "status" },
      el(
        "p",
        {},
        linked(
          ngettext(
            "Your clock ran out: your seat is absent, and the bot plays every decision for you (C4, C5). Your own moves are refused until you take your seat back.",
            "Your clock ran out {n} times in a row: your seat is absent, and the bot plays every decision for you (C4, C5). Your own moves are refused until you take your seat back.",
            absentAfter > 1 ? absentAfter : 1,
            { n: "{n}" },
          ),
          { n: number(absentAfter) },
        ),
      ),
      el("button", { type: "button", id: "reclaim", class: "primary", onclick: onReclaim }, _("Take my seat back")),
    );
  }
  const left = absentAfter - player.timeouts;
  return el(
    "section",
    { id: "timeout-notice", class: "banner info", role: "status" },
    el(
      "p",
      {},
      linked(
        ngettext(
          "Your clock ran out: the bot played for you (C3). {n} timeout in a row; {left} more and the bot plays every decision until you take your seat back (C4, C5). Your next move, made yourself, ends the streak.",
          "Your clock ran out: the bot played for you (C3). {n} timeouts in a row; {left} more and the bot plays every decision until you take your seat back (C4, C5). Your next move, made yourself, ends the streak.",
          player.timeouts,
          { n: "{n}" },
        ),
        { n: number(player.timeouts), left: number(left) },
      ),
    ),
  );
}

let ticking = null;
/** Count every running clock on the page down, once a second. */
export function startTicking() {
  if (!ticking) ticking = setInterval(tick, 1000);
}

/** Who at the game is on vacation now (docs/vacation.md V8): "Ann is on vacation until
 * 12 Dec, 14:00, 21.5 days left", one line per seat. */
export function vacationNotices(notices, players) {
  return (notices || []).map((n) => {
    const p = (players || []).find((q) => q.seat === n.seat);
    const name = p?.name || _("Seat {seat}", { seat: n.seat });
    const until = moment(n.until, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
    const link = (rule) => el("a", { href: `/docs/vacation#${rule}` }, rule);
    const template = n.kind === "automatic"
      ? ngettext("{name} is on vacation until {until} (their own time ran out), {n} day left (V8)", "{name} is on vacation until {until} (their own time ran out), {n} days left (V8)", n.days_left, { n: "{n}" })
      : ngettext("{name} is on vacation until {until}, {n} day left (V8)", "{name} is on vacation until {until}, {n} days left (V8)", n.days_left, { n: "{n}" });
    return el("p", { class: "vacation-notice", "data-seat": n.seat }, linked(template, { name, until, n: number(n.days_left) }, link));
  });
}
