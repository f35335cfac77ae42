// Turn clocks in the browser (docs/clocks.md): the time control in words, each seat's
// time left counting down live, "last move 3 h ago", and the time a move used. The
// server says what its clock read (`clock.now`); the countdown runs from there, so a
// browser whose own clock is wrong still counts the server's time.

import { el } from "./api.js";

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
  if (tc.control === "move") return `${span(tc.move_seconds)} per move`;
  return tc.increment_seconds ? `${span(tc.base_seconds)} + ${span(tc.increment_seconds)} per move` : `${span(tc.base_seconds)}, no increment`;
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
}

let ticking = null;
/** Count every running clock on the page down, once a second. */
export function startTicking() {
  if (!ticking) ticking = setInterval(tick, 1000);
}
