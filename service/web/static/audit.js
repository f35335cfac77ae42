// The audit: per turn, every command received (accepted or rejected) with actor,
// time, outcome and rule, beside the events it caused; the hash-chain check; once
// the game is over, the revealed seed and the check of every draw against it.

import { api, el, me, nav, problemText, problemWords, ruleLink } from "./api.js";
import { Board } from "./board.js";

const gameId = document.body.dataset.game;
let board = null;

/** The board as it was right after a command (accepted) or when it was refused. */
async function showAfter(c) {
  const version = c.outcome === "accepted" ? c.last_version : c.judged_version;
  if (!version) return;
  const state = await api("GET", `/games/${gameId}/state?at=${version}`);
  if (!state.ok) return;
  board.render(state.data.position, {});
  document.getElementById("audit-board-caption").textContent = `The board at version ${version}, ${c.outcome === "accepted" ? "after" : "when it refused"} ${c.payload.type || "the command"} by ${c.actor.name || c.actor.account}.`;
  for (const row of document.querySelectorAll("li.command.current")) row.classList.remove("current");
  document.querySelector(`li.command[data-seq="${c.seq}"]`)?.classList.add("current");
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
  return el(
    "li",
    { class: `command ${c.outcome}`, "data-outcome": c.outcome, "data-rule": c.rejection?.rule || "", "data-seq": c.seq, tabindex: "0", title: "Show the board at this command", onclick: () => showAfter(c), onkeydown: (e) => e.key === "Enter" && showAfter(c) },
    el("div", {}, el("code", {}, c.payload.type || "?"), ` by ${c.actor.name || c.actor.account} at ${c.received_at} (judged at v${c.judged_version}) `, outcome(c)),
    c.events.length ? el("ol", { class: "events" }, c.events.map((e) => el("li", { value: e.version }, `v${e.version} ${e.type}: ${e.description}${e.rule ? ` [${e.rule}]` : ""}${e.automatic ? " (automatic)" : ""}`))) : null,
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
    main.replaceChildren(el("p", {}, "The audit is for this game's players and auditors: ", el("a", { href: "/" }, "sign in"), " first."));
    return;
  }
  const [audit, verify, game] = await Promise.all([
    auditPages(),
    api("GET", `/games/${gameId}/verify`),
    api("GET", `/games/${gameId}`),
  ]);
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
        el("h2", {}, `Audit of game ${gameId}`),
        verification(verify.ok ? verify.data : null),
        reveal ? el("p", { id: "seed" }, "Revealed seed: ", el("code", {}, reveal.data.seed_hex)) : null,
        ...audit.data.turns.map((t) => el("section", { class: "card turn", "data-turn": t.turn }, el("h3", {}, t.turn === 0 ? "Setup" : `Turn ${t.turn}`), el("ul", { class: "commands" }, t.commands.map(commandRow)))),
      ),
      el("aside", { class: "audit-board" }, el("div", { id: "audit-board", class: "board-host" }), el("p", { id: "audit-board-caption", class: "muted" }, "Click a command to see the board at that moment.")),
    ),
  );
  const tiles = await api("GET", "/tiles");
  board = new Board(document.getElementById("audit-board"), tiles.data);
  if (game.ok) board.render(game.data.position, {});
}

main();
