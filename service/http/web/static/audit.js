// The audit: per turn, every command received (accepted or rejected) with actor,
// time, outcome and rule, in words, beside the events it caused; filters (refused
// only, by seat, by turn); the board before and after any command; the events'
// hashes, the deck commitment and the entropy on demand; the hash-chain check; once
// the game is over, the revealed seed and the check of every draw against it.

import { api, colourName, el, me, nav, problemText, problemWords, ruleLink } from "./api.js";
import { Board } from "./board.js";
import { when } from "./disputing.js";
import { _, lang, list, ngettext } from "./i18n.js";

const gameId = document.body.dataset.game;
let board = null;
let tiles = null;

/** A translated message with elements in it: each {field} named in ``parts`` becomes its element or text. */
function withElements(text, parts) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((piece, i) => (i % 2 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece)).filter((piece) => piece !== "");
}

/** A colour's name inside a sentence ("blue", "bleu", "blu"). */
const colour = (c) => colourName(c).toLocaleLowerCase(lang);

/** What the board shows, at ``which`` moment of command ``c``. */
function caption(c, version, which) {
  const values = { version, command: commandWords(c.payload), actor: c.actor.name || c.actor.account };
  if (which === "before") return _("The board at version {version}, before {command} by {actor}.", values);
  if (which === "after") return _("The board at version {version}, after {command} by {actor}.", values);
  return _("The board at version {version}, when the service refused {command} by {actor}.", values);
}

/** The board at ``version``: ``which`` says before or after which command. */
async function showAt(c, version, which) {
  if (!version && version !== 0) return;
  if (version === 0) return;
  const state = await api("GET", `/games/${gameId}/state?at=${version}`);
  if (!state.ok) return;
  board.render(state.data.position, { whole: true });
  document.getElementById("audit-board-caption").textContent = caption(c, version, which);
  for (const row of document.querySelectorAll("li.command.current")) row.classList.remove("current");
  document.querySelector(`li.command[data-seq="${c.seq}"]`)?.classList.add("current");
}

function showAfter(c) {
  return c.outcome === "accepted" ? showAt(c, c.last_version, "after") : showAt(c, c.judged_version, "refused");
}

function island(id) {
  return tiles?.tiles?.[id]?.name || id;
}

/** A command's contents in words (the payload is shown too, for the record). */
export function commandWords(p) {
  const numbers = (indexes) => (indexes || []).map((b) => b + 1).join(", ");
  switch (p?.type) {
    case "CreateGame":
      return _("Open the game");
    case "JoinGame":
      return _("Take a seat as {colours}", { colours: list((p.colours || []).map(colour)) });
    case "StartGame":
      return _("Start the game");
    case "PlaceStartingBoat":
      return _("Place a starting boat on Tonga, beach {beach}", { beach: p.beach + 1 });
    case "Expand": {
      const values = { island: island(p.island), beaches: numbers(p.beaches) };
      const n = (p.beaches || []).length;
      if (p.take_from) return ngettext("Expand on {island}, beach {beaches} (the boat from {from})", "Expand on {island}, beaches {beaches} (the boat from {from})", n, { ...values, from: island(p.take_from[0]) });
      return ngettext("Expand on {island}, beach {beaches}", "Expand on {island}, beaches {beaches}", n, values);
    }
    case "PlaceBoats":
      return ngettext("Place boats on {island}, beach {beaches}", "Place boats on {island}, beaches {beaches}", (p.beaches || []).length, { island: island(p.island), beaches: numbers(p.beaches) });
    case "Emigrate":
      return _("Emigrate from {island}, beach {beach}, by jetty {jetty}", { island: island(p.island), beach: p.beach + 1, jetty: p.jetty });
    case "Land": {
      const landed = (p.beaches || []).map((b, i) => (b.length ? _("beach {beach} {boats}", { beach: i + 1, boats: b.map(colour).join("+") }) : null)).filter(Boolean);
      return landed.length ? _("Land on {island}: {landing}", { island: island(p.island), landing: landed.join("; ") }) : _("Land on {island}: nobody", { island: island(p.island) });
    }
    case "PlaceTile":
      return _("Place {tile} at {cell}, turned {rotation}", { tile: island(p.tile), cell: (p.cell || []).join(","), rotation: p.rotation });
    case "FoundRoyalIsland":
      return _("Found a royal island on {island}", { island: island(p.island) });
    case "NewColonisation":
      return _("Start a new colonisation");
    case "PlaceColonist":
      return _("Place the colonist on {island}, beach {beach}", { island: island(p.island), beach: p.beach + 1 });
    case "PauseGame":
      return _("Pause the game for a dispute (auditor)");
    case "ResumeGame":
      return _("Resume the game (auditor)");
    case "AmendResult":
      return p.annulled ? _("Annul the result (auditor's ruling)") : _("Amend the ranking (auditor's ruling)");
    case "RewindGame":
      return _("Rewind the game to version {version} (auditor's ruling)", { version: p.to_version });
    case "RequestTakeback":
      return p.to_version ? _("Ask to take back my last decision (back to version {version}) (T1)", { version: p.to_version }) : _("Ask to take back my last decision (T1)");
    case "AnswerTakeback":
      return p.accept ? _("Accept the takeback (T3)") : _("Refuse the takeback (T3)");
    case "WithdrawTakeback":
      return _("Withdraw my takeback request (T4)");
    case "ProposeEnd":
      return _("Propose to end the game now (T6)");
    case "AnswerEnd":
      return p.accept ? _("Agree to end the game (T6)") : _("Decline to end the game (T6)");
    case "WithdrawEnd":
      return _("Withdraw my proposal to end the game (T4)");
    case "ReclaimSeat":
      return _("Take my seat back from the bot (C5)");
    case "Resign":
      return _("Resign (C6)");
    default:
      return p?.type || "?";
  }
}

/** The hashes of a command's events, fetched when asked for. */
function hashes(c) {
  const box = el("details", { class: "hashes" }, el("summary", {}, _("hashes")));
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
  if (c.outcome === "accepted") return el("span", { class: "ok" }, _("accepted → v{first}–{last}", { first: c.first_version, last: c.last_version }));
  const why = c.rejection || {};
  // in words first, then what the rules engine recorded (code and detail) for the record
  return el(
    "span",
    { class: "rejected" },
    _("rejected: {reason}", { reason: problemWords(why) }),
    why.rule ? [" (", ruleLink(why.rule), ")"] : null,
    el("span", { class: "muted" }, " ", withElements(_("— recorded as {code}"), { code: el("code", {}, why.code || "?") }), why.detail ? `: ${why.detail}` : ""),
  );
}

function commandRow(c) {
  const stop = (f) => (e) => {
    e.stopPropagation();
    f();
  };
  return el(
    "li",
    { class: `command ${c.outcome}`, "data-outcome": c.outcome, "data-actor": c.actor.account || "", "data-turn": c.turn, "data-rule": c.rejection?.rule || "", "data-seq": c.seq, tabindex: "0", title: _("Show the board at this command"), onclick: () => showAfter(c), onkeydown: (e) => e.key === "Enter" && showAfter(c) },
    el(
      "div",
      {},
      withElements(_("{command} by {actor}, {time} (judged at version {version}) {outcome}"), {
        command: el("b", { class: "words" }, commandWords(c.payload)),
        actor: c.actor.name || c.actor.account,
        time: el("time", { datetime: c.received_at, title: c.received_at }, when(c.received_at)),
        version: String(c.judged_version),
        outcome: outcome(c),
      }),
    ),
    el(
      "div",
      { class: "row command-tools" },
      el("button", { type: "button", class: "before", onclick: stop(() => showAt(c, c.judged_version, "before")) }, _("board before")),
      c.outcome === "accepted" ? el("button", { type: "button", class: "after", onclick: stop(() => showAt(c, c.last_version, "after")) }, _("board after")) : null,
      el("details", { class: "payload" }, el("summary", {}, _("payload")), el("pre", { class: "json" }, JSON.stringify(c.payload, null, 1))),
      c.outcome === "accepted" && c.first_version ? hashes(c) : null,
    ),
    c.events.length ? el("ol", { class: "events" }, c.events.map((e) => el("li", { value: e.version, class: e.superseded ? "superseded" : "" }, eventWords(e)))) : null,
  );
}

/** An event of a command in the audit: version, type, description, rule, automatic or not. */
function eventWords(e) {
  const values = { version: e.version, type: e.type, description: e.description, rule: e.rule };
  if (e.rule) return e.automatic ? _("v{version} {type}: {description} [{rule}] (automatic)", values) : _("v{version} {type}: {description} [{rule}]", values);
  return e.automatic ? _("v{version} {type}: {description} (automatic)", values) : _("v{version} {type}: {description}", values);
}

/** A turn's heading: the setup, then turn 1, 2, … */
function turnName(turn) {
  return turn === 0 ? _("Setup") : _("Turn {turn}", { turn });
}

/** Refused only, one seat's commands, one turn: rows hidden, empty turns too. */
function filters(turns, seats) {
  const refused = el("input", { type: "checkbox", id: "only-refused" });
  const seat = el("select", { id: "by-seat", "aria-label": _("Seat") }, el("option", { value: "" }, _("Every seat")), seats.map((s) => el("option", { value: s.player_id }, s.name || s.player_id)));
  const turn = el("select", { id: "by-turn", "aria-label": _("Turn") }, el("option", { value: "" }, _("Every turn")), turns.map((t) => el("option", { value: String(t.turn) }, turnName(t.turn))));
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
    const said = ngettext("{n} command shown", "{n} commands shown", shown);
    count.textContent = ` ${said}`;
  };
  for (const input of [refused, seat, turn]) input.addEventListener("change", apply);
  queueMicrotask(apply);
  return el("div", { class: "card row filters", id: "filters" }, el("label", {}, refused, " ", _("Refused only")), el("label", {}, _("Seat"), " ", seat), el("label", {}, _("Turn"), " ", turn), count);
}

/** The deck commitment and every seat's entropy (GameCreated, PlayerJoined), on demand. */
function deckFacts(created, joined) {
  if (!created) return null;
  return el(
    "details",
    { id: "deck-facts" },
    el("summary", {}, _("Deck commitment and entropy")),
    el("p", {}, withElements(_("Commitment (sha256 of the secret seed): {commitment}"), { commitment: el("code", {}, created.data.deck_commitment) }), ` · ${created.data.deck_algorithm}`),
    el("ul", {}, joined.map((e) => el("li", {}, withElements(_("Seat {seat} ({colours}): entropy {entropy}"), { seat: String(e.data.seat), colours: e.data.colours.map(colour).join("/"), entropy: el("code", {}, JSON.stringify(e.data.entropy)) })))),
  );
}

function verification(v) {
  if (!v) return el("p", { class: "muted" }, _("Verification unavailable."));
  return el(
    "section",
    { class: "card", id: "verification" },
    el("h2", {}, _("Verification")),
    el("p", { id: "chain", class: v.chain_ok ? "ok" : "rejected" }, v.chain_ok ? ngettext("Hash chain intact over {n} event.", "Hash chain intact over {n} events.", v.events) : _("Hash chain broken: {problems}", { problems: v.chain_problems.join("; ") })),
    el(
      "p",
      { id: "deck" },
      v.deck_revealed
        ? v.deck_ok
          ? ngettext("Seed revealed; it matches the commitment and the {n} draw.", "Seed revealed; it matches the commitment and all {n} draws.", v.draws_checked)
          : _("Deck check failed: {problems}", { problems: v.deck_problems.join("; ") })
        : _("The seed is revealed when the game ends; until then the draws cannot be checked."),
    ),
    el(
      "p",
      { id: "rerun" },
      v.rerun_problems.length
        ? _("Re-run found: {problems}", { problems: v.rerun_problems.join("; ") })
        : ngettext(
            "{n} accepted command re-run through the engine, under the rules it was recorded with ({rules}), gives exactly the recorded events.",
            "{n} accepted commands re-run through the engine, each under the rules it was recorded with ({rules}), give exactly the recorded events.",
            v.commands_rerun,
            { rules: v.recorded_rules.join(", ") || v.rules_version },
          ),
    ),
    v.rule_changes.length
      ? el(
          "div",
          { id: "rule-changes" },
          el(
            "p",
            {},
            withElements(
              ngettext("Under today's rules ({version}), {n} of these commands would give other events — rule changes, not errors ({link}):", "Under today's rules ({version}), {n} of these commands would give other events — rule changes, not errors ({link}):", v.rule_changes.length),
              { version: v.rules_version, link: el("a", { href: "/docs/rules#rule-changes-and-recorded-games" }, _("what changed")) },
            ),
          ),
          el("ul", {}, v.rule_changes.map((c) => el("li", {}, _("{command} by {actor}, event {version}: {difference} [{explained_by}]", { command: c.command, actor: c.actor?.name || c.actor?.account || "?", version: c.event_version, difference: c.difference, explained_by: c.explained_by })))),
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
    main.replaceChildren(el("h1", {}, _("Audit")), el("p", {}, withElements(_("The audit is for this game's players and auditors: {link} first."), { link: el("a", { href: "/" }, _("sign in")) })));
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
        el("h1", {}, _("Audit of game {game}", { game: gameId })),
        verification(verify.ok ? verify.data : null),
        reveal ? el("p", { id: "seed" }, withElements(_("Revealed seed: {seed}"), { seed: el("code", {}, reveal.data.seed_hex) })) : null,
        opening.ok ? deckFacts(opening.data.events.find((e) => e.type === "GameCreated"), opening.data.events.filter((e) => e.type === "PlayerJoined")) : null,
        filters(audit.data.turns, game.ok ? game.data.players : []),
        ...audit.data.turns.map((t) => el("section", { class: "card turn", "data-turn": t.turn }, el("h3", {}, turnName(t.turn)), el("ul", { class: "commands" }, t.commands.map(commandRow)))),
      ),
      el("aside", { class: "audit-board" }, el("div", { id: "audit-board", class: "board-host" }), el("p", { id: "audit-board-caption", class: "muted" }, _("Click a command to see the board at that moment."))),
    ),
  );
  board = new Board(document.getElementById("audit-board"), tiles);
  if (game.ok) board.render(game.data.position, { whole: true });
}

main();
