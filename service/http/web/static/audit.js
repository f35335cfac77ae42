// The audit: per turn, every command received (accepted or rejected) with actor,
// time, outcome and rule, in words, beside the events it caused; filters (refused
// only, by seat, by turn); the board before and after any command; the events'
// hashes, the deck commitment and the entropy on demand; the hash-chain check; once
// the game is over, the revealed seed and the check of every draw against it.

import { api, el, me, nav, problemText, problemWords, ruleLink } from "./api.js";
import { Board } from "./board.js";
import { when } from "./disputing.js";

const gameId = document.body.dataset.game;
let board = null;
let tiles = null;

/** The board at ``version``: ``when`` says before or after which command. */
async function showAt(c, version, moment) {
  if (!version && version !== 0) return;
  if (version === 0) return;
  const state = await api("GET", `/games/${gameId}/state?at=${version}`);
  if (!state.ok) return;
  board.render(state.data.position, { whole: true });
  document.getElementById("audit-board-caption").textContent = `The board at version ${version}, ${moment} ${commandWords(c.payload)} by ${c.actor.name || c.actor.account}.`;
  for (const row of document.querySelectorAll("li.command.current")) row.classList.remove("current");
  document.querySelector(`li.command[data-seq="${c.seq}"]`)?.classList.add("current");
}

function showAfter(c) {
  return c.outcome === "accepted" ? showAt(c, c.last_version, "after") : showAt(c, c.judged_version, "when the service refused");
}

function island(id) {
  return tiles?.tiles?.[id]?.name || id;
}

/** A command's contents in words (the payload is shown too, for the record). */
export function commandWords(p) {
  const beaches = (list) => (list.length === 1 ? `beach ${list[0] + 1}` : `beaches ${list.map((b) => b + 1).join(", ")}`);
  switch (p?.type) {
    case "CreateGame":
      return "Open the game";
    case "JoinGame":
      return `Take a seat as ${(p.colours || []).join(" and ")}`;
    case "StartGame":
      return "Start the game";
    case "PlaceStartingBoat":
      return `Place a starting boat on Tonga, beach ${p.beach + 1}`;
    case "Expand":
      return `Expand on ${island(p.island)}, ${beaches(p.beaches || [])}${p.take_from ? ` (the boat from ${island(p.take_from[0])})` : ""}`;
    case "PlaceBoats":
      return `Place boats on ${island(p.island)}, ${beaches(p.beaches || [])}`;
    case "Emigrate":
      return `Emigrate from ${island(p.island)}, beach ${p.beach + 1}, by jetty ${p.jetty}`;
    case "Land":
      return `Land on ${island(p.island)}: ${(p.beaches || []).map((b, i) => (b.length ? `beach ${i + 1} ${b.join("+")}` : null)).filter(Boolean).join("; ") || "nobody"}`;
    case "PlaceTile":
      return `Place ${island(p.tile)} at ${(p.cell || []).join(",")}, turned ${p.rotation}`;
    case "FoundRoyalIsland":
      return `Found a royal island on ${island(p.island)}`;
    case "NewColonisation":
      return "Start a new colonisation";
    case "PlaceColonist":
      return `Place the colonist on ${island(p.island)}, beach ${p.beach + 1}`;
    case "PauseGame":
      return "Pause the game for a dispute (auditor)";
    case "ResumeGame":
      return "Resume the game (auditor)";
    case "AmendResult":
      return p.annulled ? "Annul the result (auditor's ruling)" : "Amend the ranking (auditor's ruling)";
    case "RewindGame":
      return `Rewind the game to version ${p.to_version} (auditor's ruling)`;
    case "RequestTakeback":
      return `Ask to take back my last decision${p.to_version ? ` (back to version ${p.to_version})` : ""} (T1)`;
    case "AnswerTakeback":
      return p.accept ? "Accept the takeback (T3)" : "Refuse the takeback (T3)";
    case "WithdrawTakeback":
      return "Withdraw my takeback request (T4)";
    case "ProposeEnd":
      return "Propose to end the game now (T6)";
    case "AnswerEnd":
      return p.accept ? "Agree to end the game (T6)" : "Decline to end the game (T6)";
    case "WithdrawEnd":
      return "Withdraw my proposal to end the game (T4)";
    case "ReclaimSeat":
      return "Take my seat back from the bot (C5)";
    case "Resign":
      return "Resign (C6)";
    default:
      return p?.type || "?";
  }
}

/** The hashes of a command's events, fetched when asked for. */
function hashes(c) {
  const box = el("details", { class: "hashes" }, el("summary", {}, "hashes"));
  box.addEventListener(
    "toggle",
    async () => {
      if (!box.open || box.dataset.loaded) return;
      box.dataset.loaded = "1";
      const n = c.last_version - c.first_version + 1;
      const r = await api("GET", `/games/${gameId}/events?after=${c.first_version - 1}&limit=${n}`);
      if (!r.ok) return;
      box.append(el("ol", { class: "hash-list" }, r.data.events.map((e) => el("li", { value: e.version }, el("code", {}, e.hash), el("span", { class: "muted" }, ` ← ${e.prev_hash.slice(0, 12)}…`)))));
    },
  );
  return box;
}

function outcome(c) {
  if (c.outcome === "accepted") return el("span", { class: "ok" }, `accepted → v${c.first_version}–${c.last_version}`);
  const why = c.rejection || {};
  // in words first, then what the rules engine recorded (code and detail) for the record
  return el(
    "span",
    { class: "rejected" },
    `rejected: ${problemWords(why)}`,
    why.rule ? [" (", ruleLink(why.rule), ")"] : null,
    el("span", { class: "muted" }, " — recorded as ", el("code", {}, why.code || "?"), why.detail ? `: ${why.detail}` : ""),
  );
}

function commandRow(c) {
  const stop = (f) => (e) => {
    e.stopPropagation();
    f();
  };
  return el(
    "li",
    { class: `command ${c.outcome}`, "data-outcome": c.outcome, "data-actor": c.actor.account || "", "data-turn": c.turn, "data-rule": c.rejection?.rule || "", "data-seq": c.seq, tabindex: "0", title: "Show the board at this command", onclick: () => showAfter(c), onkeydown: (e) => e.key === "Enter" && showAfter(c) },
    el(
      "div",
      {},
      el("b", { class: "words" }, commandWords(c.payload)),
      ` by ${c.actor.name || c.actor.account}, `,
      el("time", { datetime: c.received_at, title: c.received_at }, when(c.received_at)),
      ` (judged at version ${c.judged_version}) `,
      outcome(c),
    ),
    el(
      "div",
      { class: "row command-tools" },
      el("button", { type: "button", class: "before", onclick: stop(() => showAt(c, c.judged_version, "before")) }, "board before"),
      c.outcome === "accepted" ? el("button", { type: "button", class: "after", onclick: stop(() => showAt(c, c.last_version, "after")) }, "board after") : null,
      el("details", { class: "payload" }, el("summary", {}, "payload"), el("pre", { class: "json" }, JSON.stringify(c.payload, null, 1))),
      c.outcome === "accepted" && c.first_version ? hashes(c) : null,
    ),
    c.events.length ? el("ol", { class: "events" }, c.events.map((e) => el("li", { value: e.version, class: e.superseded ? "superseded" : "" }, `v${e.version} ${e.type}: ${e.description}${e.rule ? ` [${e.rule}]` : ""}${e.automatic ? " (automatic)" : ""}`))) : null,
  );
}

/** Refused only, one seat's commands, one turn: rows hidden, empty turns too. */
function filters(turns, seats) {
  const refused = el("input", { type: "checkbox", id: "only-refused" });
  const seat = el("select", { id: "by-seat", "aria-label": "Seat" }, el("option", { value: "" }, "Every seat"), seats.map((s) => el("option", { value: s.player_id }, s.name || s.player_id)));
  const turn = el("select", { id: "by-turn", "aria-label": "Turn" }, el("option", { value: "" }, "Every turn"), turns.map((t) => el("option", { value: String(t.turn) }, t.turn === 0 ? "Setup" : `Turn ${t.turn}`)));
  const count = el("span", { id: "shown", class: "muted" });
  const apply = () => {
    let shown = 0;
    for (const section of document.querySelectorAll("section.turn")) {
      let visible = 0;
      for (const row of section.querySelectorAll("li.command")) {
        const ok = (!refused.checked || row.dataset.outcome === "rejected") && (!seat.value || row.dataset.actor === seat.value) && (!turn.value || section.dataset.turn === turn.value);
        row.hidden = !ok;
        visible += ok ? 1 : 0;
      }
      section.hidden = visible === 0;
      shown += visible;
    }
    count.textContent = ` ${shown} command${shown === 1 ? "" : "s"} shown`;
  };
  for (const input of [refused, seat, turn]) input.addEventListener("change", apply);
  queueMicrotask(apply);
  return el("div", { class: "card row filters", id: "filters" }, el("label", {}, refused, " Refused only"), el("label", {}, "Seat ", seat), el("label", {}, "Turn ", turn), count);
}

/** The deck commitment and every seat's entropy (GameCreated, PlayerJoined), on demand. */
function deckFacts(created, joined) {
  if (!created) return null;
  return el(
    "details",
    { id: "deck-facts" },
    el("summary", {}, "Deck commitment and entropy"),
    el("p", {}, "Commitment (sha256 of the secret seed): ", el("code", {}, created.data.deck_commitment), ` · ${created.data.deck_algorithm}`),
    el("ul", {}, joined.map((e) => el("li", {}, `Seat ${e.data.seat} (${e.data.colours.join("/")}): entropy `, el("code", {}, JSON.stringify(e.data.entropy))))),
  );
}

function verification(v) {
  if (!v) return el("p", { class: "muted" }, "Verification unavailable.");
  return el(
    "section",
    { class: "card", id: "verification" },
    el("h2", {}, "Verification"),
    el("p", { id: "chain", class: v.chain_ok ? "ok" : "rejected" }, v.chain_ok ? `Hash chain intact over ${v.events} events.` : `Hash chain broken: ${v.chain_problems.join("; ")}`),
    el("p", { id: "deck" }, v.deck_revealed ? (v.deck_ok ? `Seed revealed; it matches the commitment and all ${v.draws_checked} draws.` : `Deck check failed: ${v.deck_problems.join("; ")}`) : "The seed is revealed when the game ends; until then the draws cannot be checked."),
    el("p", { id: "rerun" }, v.rerun_problems.length ? `Re-run found: ${v.rerun_problems.join("; ")}` : `${v.commands_rerun} accepted commands re-run through the engine, each under the rules it was recorded with (${v.recorded_rules.join(", ") || v.rules_version}), give exactly the recorded events.`),
    v.rule_changes.length
      ? el(
          "div",
          { id: "rule-changes" },
          el("p", {}, `Under today's rules (${v.rules_version}), ${v.rule_changes.length} of these commands would give other events — rule changes, not errors (`, el("a", { href: "/docs/rules#rule-changes-and-recorded-games" }, "what changed"), "):"),
          el("ul", {}, v.rule_changes.map((c) => el("li", {}, `${c.command} by ${c.actor?.name || c.actor?.account || "?"}, event ${c.event_version}: ${c.difference} [${c.explained_by}]`))),
        )
      : null,
  );
}

// The audit comes a page of commands at a time; commands of one turn may span pages.
async function auditPages() {
  const turns = new Map();
  let after = 0;
  for (;;) {
    const page = await api("GET", `/games/${gameId}/audit?after=${after}&limit=500`);
    if (!page.ok) return page;
    for (const t of page.data.turns) turns.set(t.turn, [...(turns.get(t.turn) || []), ...t.commands]);
    if (!page.data.has_more) break;
    after = page.data.next_after;
  }
  return { ok: true, data: { turns: [...turns.entries()].sort((a, b) => a[0] - b[0]).map(([turn, commands]) => ({ turn, commands })) } };
}

async function main() {
  nav(gameId);
  const main = document.getElementById("main");
  if (!me()) {
    main.replaceChildren(el("h1", {}, "Audit"), el("p", {}, "The audit is for this game's players and auditors: ", el("a", { href: "/" }, "sign in"), " first."));
    return;
  }
  const [audit, verify, game, opening, tileData] = await Promise.all([
    auditPages(),
    api("GET", `/games/${gameId}/verify`),
    api("GET", `/games/${gameId}`),
    api("GET", `/games/${gameId}/events?after=0&limit=20`),
    api("GET", "/tiles"),
  ]);
  tiles = tileData.data;
  if (!audit.ok) {
    main.replaceChildren(el("p", { class: "error" }, problemText(audit.data)));
    return;
  }
  // DeckRevealed is among the last events (appended with GameEnded)
  const tail = game.ok ? await api("GET", `/games/${gameId}/events?after=${Math.max(0, game.data.version - 5)}`) : null;
  const reveal = tail?.ok ? tail.data.events.find((e) => e.type === "DeckRevealed") : null;
  main.replaceChildren(
    el(
      "section",
      { class: "audit audit-layout" },
      el(
        "div",
        {},
        el("h1", {}, `Audit of game ${gameId}`),
        verification(verify.ok ? verify.data : null),
        reveal ? el("p", { id: "seed" }, "Revealed seed: ", el("code", {}, reveal.data.seed_hex)) : null,
        opening.ok ? deckFacts(opening.data.events.find((e) => e.type === "GameCreated"), opening.data.events.filter((e) => e.type === "PlayerJoined")) : null,
        filters(audit.data.turns, game.ok ? game.data.players : []),
        ...audit.data.turns.map((t) => el("section", { class: "card turn", "data-turn": t.turn }, el("h3", {}, t.turn === 0 ? "Setup" : `Turn ${t.turn}`), el("ul", { class: "commands" }, t.commands.map(commandRow)))),
      ),
      el("aside", { class: "audit-board" }, el("div", { id: "audit-board", class: "board-host" }), el("p", { id: "audit-board-caption", class: "muted" }, "Click a command to see the board at that moment.")),
    ),
  );
  board = new Board(document.getElementById("audit-board"), tiles);
  if (game.ok) board.render(game.data.position, { whole: true });
}

main();
