// The move list: every turn, the commands in it (a command is what one player sent;
// forced choices the service applied for them belong to it), each with the events it
// caused in words. Built from the public event log (command ids, actors) and the
// replay timeline (one line per event).

import { api, colourName, el } from "./api.js";
import { usedText } from "./clocks.js";
import { _, ngettext, number } from "./i18n.js";
import { who } from "./words.js";

/** Every event and timeline step after ``after`` (all pages), into ``history``; with
 * ``atLeast`` the timeline is waited for until it holds that version (it may lag). */
export async function loadHistory(gameId, history = { events: new Map(), steps: new Map() }, after = 0, atLeast = 0) {
  for (let cursor = after; ; ) {
    const page = await api("GET", `/games/${gameId}/events?after=${cursor}&limit=1000`);
    if (!page.ok) return history;
    for (const e of page.data.events) history.events.set(e.version, e);
    cursor = page.data.next_after;
    if (!page.data.has_more) break;
  }
  for (let cursor = after; ; ) {
    const wait = atLeast ? `&min_version=${atLeast}` : "";
    const page = await api("GET", `/games/${gameId}/timeline?after=${cursor}&limit=1000${wait}`);
    if (!page.ok) break; // the timeline may lag: the events alone still make the list
    for (const s of page.data.steps) history.steps.set(s.version, s);
    cursor = page.data.next_after;
    if (!page.data.has_more) break;
  }
  return history;
}

const SILENT = new Set(["TurnEnded", "DeckRevealed"]);

// why the bot played a move (the actor's reason)
const BOT_REASONS = { timeout: _("the bot (timed out)"), absent: _("the bot (absent)"), resigned: _("the bot (resigned)"), bot: _("a bot's seat") };

/** Turns, each with its moves: {turn, moves: [{id, first, last, colour, actor, lines}]}. */
export function groupMoves(history, names) {
  const turns = [];
  let move = null;
  // a ruling's rewind (D6) supersedes the versions between where it went and itself
  // a ruling's rewind (D6) or a takeback (T3) sets aside the steps between
  const rewinds = [...history.events.entries()].filter(([, e]) => e.type === "GameRewound" || e.type === "MovesTakenBack").map(([v, e]) => [e.data.to_version, v]);
  const superseded = (v) => rewinds.some(([to, at]) => to < v && v < at);
  for (const version of [...history.events.keys()].sort((a, b) => a - b)) {
    const event = history.events.get(version);
    const step = history.steps.get(version);
    const command = event.metadata?.command_id || `v${version}`;
    const turn = step ? step.turn : turns.at(-1)?.turn ?? 0;
    if (!move || move.id !== command) {
      if (!turns.length || turns.at(-1).turn !== turn) turns.push({ turn, moves: [] });
      const actor = event.metadata?.actor?.name || null;
      move = { id: command, first: version, last: version, colour: step?.colour || null, actor, lines: [], superseded: superseded(version), rewind: event.type === "GameRewound" };
      turns.at(-1).moves.push(move);
    }
    move.last = version;
    const used = event.metadata?.clock?.used_ms;
    if (used !== undefined) move.used = used; // the transaction's last event holds it
    if (event.metadata?.actor?.bot) move.bot = event.metadata.actor.reason;
    if (!SILENT.has(event.type)) {
      const text = step ? step.description : event.type;
      move.lines.push({ version, type: event.type, text, rule: step?.rule, automatic: step?.automatic });
    }
  }
  return turns;
}

function moveTitle(move, names) {
  const colour = move.colour ? who(names, move.colour) : move.actor || _("The table");
  return move.actor && move.colour && !names.byColour[move.colour] ? _("{name} ({colour})", { name: move.actor, colour: colourName(move.colour) }) : colour;
}

/** The list, newest last; ``onSelect(version)`` shows the board after a move. */
export function moveList(turns, names, { current: cur, onSelect } = {}) {
  const items = turns.map((t) =>
    el(
      "li",
      { class: "turn", "data-turn": t.turn },
      el("h4", {}, t.turn === 0 ? _("Setup") : _("Turn {turn}", { turn: number(t.turn) })),
      el(
        "ol",
        { class: "turn-moves" },
        t.moves.map((m) => {
          const current = cur !== undefined && cur >= m.first && cur <= m.last;
          return el(
            "li",
            {
              class: `move${current ? " current" : ""}${m.superseded ? " superseded" : ""}${m.rewind ? " rewind" : ""}`,
              title: m.superseded ? _("Superseded: a ruling or a takeback went back past this move") : undefined,
              "data-first": m.first,
              "data-last": m.last,
              // the button's click (a pointer, Enter or Space) comes up here, and so does a
              // click on the move's lines below it
              onclick: () => onSelect && onSelect(m.last),
            },
            // a real button whose name is its visible text (WCAG 2.5.3), then what it does
            el(
              "button",
              { type: "button", class: "move-button", "aria-current": current ? "step" : undefined },
              el("span", { class: `who colour-text-${m.colour || "none"}` }, moveTitle(m, names)),
              m.bot ? el("span", { class: "tag bot" }, " · ", BOT_REASONS[m.bot] || _("the bot ({reason})", { reason: m.bot })) : null,
              m.used !== undefined ? el("span", { class: "muted used", title: _("time this move took") }, " · ", _("took {time}", { time: usedText(m.used) })) : null,
              m.superseded ? el("span", { class: "superseded-tag" }, " ", _("superseded")) : null,
              el("span", { class: "visually-hidden" }, " — ", _("show the board after this move (version {version})", { version: m.last })),
            ),
            el(
              "ul",
              { class: "lines" },
              m.lines.map((line) =>
                el(
                  "li",
                  { "data-version": line.version, "data-type": line.type },
                  line.text,
                  line.automatic ? el("span", { class: "muted" }, " ", _("(only choice)")) : null,
                ),
              ),
            ),
          );
        }),
      ),
    ),
  );
  return el("ol", { class: "moves", "aria-label": _("Moves") }, items);
}

const SEEN = (gameId) => `tongiaki.seen.${gameId}`;

export function lastSeen(gameId) {
  return Number(localStorage.getItem(SEEN(gameId)) || 0);
}

export function markSeen(gameId, version) {
  if (version > lastSeen(gameId)) localStorage.setItem(SEEN(gameId), String(version));
}

/** What happened since this browser last saw the game: the moves, in words. */
export function sinceLastVisit(turns, names, seen, { onDismiss, onSelect } = {}) {
  const moves = turns.flatMap((t) => t.moves.map((m) => ({ ...m, turn: t.turn }))).filter((m) => m.last > seen);
  if (!seen || !moves.length) return null;
  return el(
    "section",
    { class: "card since", id: "since", "aria-label": _("Since your last visit") },
    el("h3", {}, ngettext("Since your last visit: {n} move", "Since your last visit: {n} moves", moves.length)),
    el(
      "ol",
      {},
      moves.slice(-12).map((m) =>
        el(
          "li",
          {},
          el("a", { href: "#", onclick: (e) => { e.preventDefault(); onSelect && onSelect(m.last); } }, _("Turn {turn}", { turn: number(m.turn) })),
          ` — ${moveTitle(m, names)}: ${m.lines.map((l) => l.text).join("; ") || "…"}`,
        ),
      ),
    ),
    moves.length > 12 ? el("p", { class: "muted" }, ngettext("…and {n} earlier one (see the move list).", "…and {n} earlier ones (see the move list).", moves.length - 12)) : null,
    el("button", { type: "button", id: "since-dismiss", onclick: onDismiss }, _("Got it")),
  );
}
