// Turn clocks in the browser (docs/clocks.md): the time control in words, each seat's
// time left counting down live, "last move 3 h ago", and the time a move used. The
// server says what its clock read (`clock.now`); the countdown runs from there, so a
// browser whose own clock is wrong still counts the server's time.

import { el, ruleLink } from "./api.js";

export const PRESETS = [
  ["none", "No clock", {}],
  ["move-3600", "1 hour per move", { time_control: "move", move_seconds: 3600 }],
  ["move-43200", "12 hours per move", { time_control: "move", move_seconds: 43200 }],
  ["move-86400", "1 day per move", { time_control: "move", move_seconds: 86400 }],
  ["move-259200", "3 days per move", { time_control: "move", move_seconds: 259200 }],
  ["fischer-300-5", "Live: 5 min + 5 s per move", { time_control: "fischer", base_seconds: 300, increment_seconds: 5 }],
  ["fischer-900-10", "Live: 15 min + 10 s per move", { time_control: "fischer", base_seconds: 900, increment_seconds: 10 }],
];

function span(seconds) {
  if (!seconds) return "0 s";
  if (seconds % 86400 === 0) return `${seconds / 86400} day${seconds === 86400 ? "" : "s"}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? "" : "s"}`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** "1 day per move", "5 min + 5 s", or null without a clock. */
export function controlText(tc) {
  if (!tc || tc.control === "none") return null;
  const away = tc.vacation ? " · vacation applies" : ""; // docs/vacation.md V2
  if (tc.control === "move") return `${span(tc.move_seconds)} per move${away}`;
  return (tc.increment_seconds ? `${span(tc.base_seconds)} + ${span(tc.increment_seconds)} per move` : `${span(tc.base_seconds)}, no increment`) + away;
}

/** 2 d 3 h · 5 h 02 min · 4:07 · 0:09 */
export function leftText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${String(m).padStart(2, "0")} min`;
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

/** "3 h ago", "just now". */
export function agoText(iso, nowMs = Date.now()) {
  if (!iso) return "";
  const s = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** How long a move took, for the move list and the replay. */
export function usedText(ms) {
  return ms >= 3600000 ? leftText(ms) : ms >= 60000 ? `${Math.floor(ms / 60000)} min ${Math.floor((ms % 60000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
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

/** Before a timeout (C3–C5): what happens if the player's running clock runs out, in
 * words; shown once less than 30 s are left (the ticker shows it), else null. */
export function timeoutWarning(clock, seat, fetchedAt, absentAfter) {
  const left = clock?.time_left_ms?.[String(seat)];
  if (left === undefined || clock.seat !== seat || clock.paused_at || !clock.deadline) return null;
  const until = fetchedAt + left;
  const times = absentAfter > 1 ? `${absentAfter} timeouts in a row` : "one timeout";
  return el(
    "p",
    { id: "timeout-warning", class: "clock-warning", role: "alert", "data-warn-until": String(until), hidden: until - Date.now() >= WARN_MS },
    "If your clock runs out, the bot plays this decision for you (", ruleLink("C3"), `); after ${times} it plays every decision until you take your seat back (`,
    ruleLink("C4"), ", ", ruleLink("C5"), ").",
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
      el("p", {}, `Your clock ran out${absentAfter > 1 ? ` ${absentAfter} times in a row` : ""}: your seat is absent, and the bot plays every decision for you (`, ruleLink("C4"), ", ", ruleLink("C5"), "). Your own moves are refused until you take your seat back."),
      el("button", { type: "button", id: "reclaim", class: "primary", onclick: onReclaim }, "Take my seat back"),
    );
  }
  const left = absentAfter - player.timeouts;
  return el(
    "section",
    { id: "timeout-notice", class: "banner info", role: "status" },
    el(
      "p",
      {},
      `Your clock ran out: the bot played for you (`, ruleLink("C3"), `). ${player.timeouts} timeout${player.timeouts === 1 ? "" : "s"} in a row; `,
      `${left} more and the bot plays every decision until you take your seat back (`, ruleLink("C4"), ", ", ruleLink("C5"), "). Your next move, made yourself, ends the streak.",
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
    const name = p?.name || `Seat ${n.seat}`;
    const until = new Date(n.until).toLocaleString([], { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
    const kind = n.kind === "automatic" ? " (their own time ran out)" : "";
    const days = `${n.days_left} day${n.days_left === 1 ? "" : "s"} left`;
    return el("p", { class: "vacation-notice", "data-seat": n.seat }, `${name} is on vacation until ${until}${kind}, ${days}`, " (", el("a", { href: "/docs/vacation#V8" }, "V8"), ")");
  });
}
