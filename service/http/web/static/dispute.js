// One dispute: what was disputed and why, its notes and ruling, and the evidence —
// the command with actor, time and payload, the board before and after it, what else
// the player could have done, refusals around it, the events with their rules and
// hashes, the receipt, a re-run under today's engine and the draw check. Auditors
// assign, pause and rule here; the player who opened it can withdraw it.

import { api, el, me, nav, problemText, ruleLink, toast } from "./api.js";
import { Board } from "./board.js";
import { DECISIONS, REASONS, rulingWords, when } from "./disputing.js";
import { people, result } from "./words.js";

const disputeId = document.body.dataset.dispute;

function who(actor) {
  if (!actor) return "?";
  return actor.name || actor.account || "?";
}

function details(summary, ...body) {
  return el("details", {}, el("summary", {}, summary), ...body);
}

function json(value) {
  return el("pre", { class: "json" }, JSON.stringify(value, null, 1));
}

function eventLine(e) {
  const data = { ...e.data };
  delete data.type;
  return el(
    "li",
    { "data-type": e.type },
    el("b", {}, e.type.replace(/([a-z])([A-Z])/g, "$1 $2")),
    ` by ${who(e.actor)} at ${when(e.at)} `,
    data.text ? el("q", {}, data.text) : null,
    data.reasoning ? el("q", {}, data.reasoning) : null,
    details("hash", el("code", {}, e.hash)),
  );
}

function boardFigure(id, caption) {
  return el("figure", { class: "evidence-board" }, el("div", { id, class: "board-host" }), el("figcaption", {}, caption));
}

function commandBlock(c, title) {
  if (!c) return el("p", { class: "muted" }, "The dispute names no command.");
  const refused = c.outcome === "rejected";
  return el(
    "div",
    { class: `command ${c.outcome}` },
    el("p", {}, el("b", {}, title), ` ${c.payload?.type || "?"} by ${who(c.actor)}, received ${when(c.received_at)} — `, refused ? el("span", { class: "rejected" }, `refused (${c.rejection?.code})`, c.rejection?.rule ? [" ", ruleLink(c.rejection.rule)] : null) : el("span", { class: "ok" }, `accepted, events ${c.versions[0]}–${c.versions[1]}`)),
    details("payload", json(c.payload)),
  );
}

function evidenceView(ev, tiles) {
  const rerun = ev.rerun;
  const draws = ev.draws;
  const section = el(
    "section",
    { class: "card evidence", id: "evidence" },
    el("h3", {}, "Evidence"),
    el("p", { id: "anchor", class: ev.anchor.matches ? "ok" : "rejected" }, ev.anchor.matches ? `The record at version ${ev.anchor.version} still has the hash it had when the dispute was opened; the game's chain checks ${ev.game.chain_ok ? "out" : "FAILED"}.` : "The record at the disputed version no longer has the hash it had when the dispute was opened."),
    commandBlock(ev.commands.disputed, "The disputed command:"),
    el("div", { class: "boards" }, boardFigure("board-before", `Before it (version ${ev.position_before.version})`), boardFigure("board-after", `After it (version ${ev.position_after.version})`)),
    el("p", {}, `At the position before, ${ev.legal_before.length} legal command${ev.legal_before.length === 1 ? " was" : "s were"} open to the player.`),
    el(
      "details",
      { id: "legal-before" },
      el("summary", {}, "What else the player could have done"),
      el("ul", {}, (ev.legal_before_words || []).map((w) => el("li", {}, w))),
      details("as commands", json(ev.legal_before)),
    ),
    ev.commands.rejected_around.length ? el("div", {}, el("p", {}, "Refused around it:"), ...ev.commands.rejected_around.map((c) => commandBlock(c, "Refused:"))) : null,
    el("p", {}, "The events it caused:"),
    el("ol", { id: "evidence-events" }, ev.events.map((e) => el("li", { value: e.version }, `${e.type} `, e.rule ? ruleLink(e.rule) : null, details("hash", el("code", {}, e.hash))))),
    el("p", { id: "receipt" }, `The player's receipt: version ${ev.receipt.version}, hash `, el("code", {}, (ev.receipt.hash || "").slice(0, 16) + "…")),
    el("p", { id: "rerun" }, !rerun.ran ? `Not re-run: ${rerun.why}.` : rerun.same ? `Re-run under today's engine (${rerun.engine}, ${rerun.rules}): the same events.` : `Re-run under today's engine differs: ${rerun.difference || rerun.refused}.`),
    el("p", { id: "draws" }, draws.ok === null ? `Draws not checked: ${draws.why}.` : draws.seed_revealed ? `${draws.checked} draws checked against the revealed seed: ${draws.ok ? "all fair" : "MISMATCH"}.` : `${draws.checked} draws so far checked by the server against its kept seed: ${draws.ok ? "yes, they match the commitment" : "NO"} (the order stays secret until the end).`),
    details("commitment, entropy and versions", json({ commitment: ev.game.deck_commitment, entropy: ev.game.entropy, versions: ev.versions })),
  );
  queueMicrotask(() => {
    new Board(section.querySelector("#board-before"), tiles).render(ev.position_before.position, { whole: true });
    new Board(section.querySelector("#board-after"), tiles).render(ev.position_after.position, { whole: true });
  });
  return section;
}

function actions(d, ev, reload) {
  const account = me();
  if (!account || d.status !== "open") return null;
  const auditor = account.kind === "auditor";
  const post = async (path, body, done) => {
    const r = await api("POST", path, body);
    if (!r.ok) {
      toast(problemText(r.data), "error");
      return;
    }
    toast(done);
    await reload();
  };
  const note = el("textarea", { id: "note-text", rows: "2", maxlength: "2000", placeholder: "A note for the record" });
  const parts = [
    el("form", { id: "note-form", onsubmit: (e) => (e.preventDefault(), post(`/disputes/${disputeId}/notes`, { text: note.value }, "Note added.")) }, note, el("button", { type: "submit" }, "Add the note")),
  ];
  if (account.account_id === d.opened_by.account) {
    parts.push(el("button", { type: "button", id: "withdraw", onclick: () => post(`/disputes/${disputeId}/withdraw`, {}, "Dispute withdrawn.") }, "Withdraw the dispute"));
  }
  if (auditor) {
    const running = ["setup", "playing"].includes(ev.game.phase);
    parts.push(
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", id: "assign-me", onclick: () => post(`/disputes/${disputeId}/assign`, {}, "Assigned to you.") }, "Assign to me"),
        running && !ev.game.paused ? el("button", { type: "button", id: "pause", onclick: () => post(`/games/${d.game_id}/pause`, { dispute_id: disputeId }, "Game paused.") }, "Pause the game") : null,
        ev.game.paused ? el("button", { type: "button", id: "resume", onclick: () => post(`/games/${d.game_id}/resume`, { dispute_id: disputeId }, "Game resumed.") }, "Resume the game") : null,
      ),
      rulingForm(d, ev, post),
    );
  }
  return el("section", { class: "card", id: "actions" }, el("h3", {}, "Act"), ...parts);
}

function rulingForm(d, ev, post) {
  const decision = el("select", { id: "decision", "aria-label": "Decision" }, Object.entries(DECISIONS).map(([v, t]) => el("option", { value: v }, t)));
  const reasoning = el("textarea", { id: "reasoning", rows: "3", maxlength: "2000", placeholder: "Reasoning, in words" });
  const rules = el("input", { id: "rules", value: "D4", "aria-label": "Rules relied on", placeholder: "R7, D4" });
  const toVersion = el("input", { id: "to-version", type: "number", min: "1", value: String(ev.position_before.version), "aria-label": "Rewind to version" });
  const annul = el("input", { id: "annul", type: "checkbox" });
  const ranking = el("input", { id: "ranking", placeholder: "player ids, best first", "aria-label": "Ranking" });
  const extra = el("div", { id: "decision-extra" });
  const update = () => {
    extra.replaceChildren(
      ...(decision.value === "rewind" ? [el("label", {}, "Continue from version ", toVersion, " (the position before the disputed command by default)")] : []),
      ...(decision.value === "result_amended" ? [el("label", {}, annul, " Annul the game"), el("label", {}, "or rank: ", ranking)] : []),
    );
  };
  decision.addEventListener("change", update);
  update();
  const body = () => {
    const b = { decision: decision.value, reasoning: reasoning.value, rules: rules.value.split(/[\s,]+/).filter(Boolean) };
    if (decision.value === "rewind") b.to_version = Number(toVersion.value);
    if (decision.value === "result_amended") {
      if (annul.checked) b.annulled = true;
      else b.ranking = ranking.value.split(/[\s,]+/).filter(Boolean);
    }
    return b;
  };
  const confirmBox = el("div", { id: "ruling-confirm", class: "confirm", role: "alert", hidden: true });
  // before any ruling the arbiter reads what it will do, in words, and confirms it
  const review = async () => {
    const b = body();
    const lines = await rulingEffect(d.game_id, b);
    if (lines.blocked) {
      confirmBox.replaceChildren(el("p", { id: "ruling-blocked" }, lines.blocked));
      confirmBox.hidden = false;
      return;
    }
    confirmBox.replaceChildren(
      el("p", {}, el("b", {}, "This ruling will:")),
      el("ul", {}, lines.map((l) => el("li", {}, l))),
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", id: "confirm-ruling", class: "primary", onclick: () => post(`/disputes/${disputeId}/ruling`, b, "Ruled.") }, "Confirm the ruling"),
        el("button", { type: "button", id: "cancel-ruling", onclick: () => (confirmBox.hidden = true) }, "Back"),
      ),
    );
    confirmBox.hidden = false;
    confirmBox.querySelector("#confirm-ruling").focus();
  };
  return el(
    "form",
    { id: "ruling-form", class: "ruling-form", onsubmit: (e) => (e.preventDefault(), review()) },
    el("h4", {}, "Rule"),
    el("label", {}, "Decision ", decision),
    extra,
    reasoning,
    el("label", {}, "Rules relied on ", rules),
    el("button", { type: "submit", id: "rule", class: "primary" }, "Issue the ruling…"),
    confirmBox,
  );
}

/** What a ruling ``b`` will do to game ``gameId``, in words (D4, D6). */
async function rulingEffect(gameId, b) {
  const [game, scores] = await Promise.all([api("GET", `/games/${gameId}`), api("GET", `/games/${gameId}/scoreboard`)]);
  const names = game.ok ? people(game.data.players) : null;
  const final = scores.ok ? scores.data.final : null;
  const now = final && names ? result(final, names, scores.data.seats || []).headline : null;
  const head = game.ok ? game.data.version : null;
  if (b.decision === "stands") return ["leave the record as it stands: nothing in the game changes (D4);", "close the dispute with your reasoning, for the players and the record."];
  if (b.decision === "rewind") {
    const lines = [
      `set aside every move after version ${b.to_version}${head ? ` — ${head - b.to_version} steps, up to version ${head}` : ""}; they stay in the record, marked as superseded (D6);`,
      `deal the tiles not yet drawn at version ${b.to_version} anew, from a fresh seed the server commits to now (D6);`,
      `continue the game from the position at version ${b.to_version}, with the player then to move.`,
    ];
    if (now) lines.push(`undo the result: ${now} — the game is under way again and no result stands until it ends.`);
    return lines;
  }
  if (b.annulled) return [`annul the result${now ? ` (${now})` : ""}: the game counts for nobody (D4).`];
  const ids = game.ok ? game.data.players.map((p) => p.player_id) : [];
  const ranking = b.ranking || [];
  const unknown = ranking.filter((id) => !ids.includes(id));
  if (!ranking.length || unknown.length || new Set(ranking).size !== ids.length || ranking.length !== ids.length) {
    const every = game.ok ? game.data.players.map((p) => `${p.name || "?"}: ${p.player_id}`).join(", ") : "";
    return { blocked: `Nothing to confirm: tick "Annul the game", or rank every player once, best first, by player id${unknown.length ? ` (not a player of this game: ${unknown.join(", ")})` : ""}. The players: ${every}.` };
  }
  const order = ranking.map((id) => names?.byId[id]?.name || id).join(", ");
  return [`replace the ranking${now ? ` (${now})` : ""} by: ${order} (D4).`];
}

async function main() {
  nav();
  const main = document.getElementById("main");
  if (!me()) {
    main.replaceChildren(el("h1", {}, "Dispute"), el("p", {}, "Disputes are for the game's players and auditors: ", el("a", { href: "/" }, "sign in"), " first."));
    return;
  }
  const tiles = (await api("GET", "/tiles")).data;
  async function load() {
    const [d, ev] = await Promise.all([api("GET", `/disputes/${disputeId}`), api("GET", `/disputes/${disputeId}/evidence`)]);
    if (!d.ok || !ev.ok) {
      main.replaceChildren(el("p", { class: "error" }, problemText((d.ok ? ev : d).data)));
      return;
    }
    const x = d.data;
    main.replaceChildren(
      el(
        "section",
        { class: "dispute-page" },
        el(
          "section",
          { class: "card", id: "dispute", "data-status": x.status },
          el("h1", {}, `Dispute: ${REASONS[x.reason] || x.reason}`),
          el("p", {}, `Opened by ${x.opened_by.name || x.opened_by.account} on `, el("a", { href: `/games/${x.game_id}` }, `game ${x.game_id}`), ` at version ${x.version}, ${when(x.opened_at)}.`),
          x.text ? el("blockquote", {}, x.text) : null,
          el("p", { id: "dispute-status" }, `Status: ${x.status}`, x.assigned_to ? ` · assigned` : ""),
          x.ruling ? el("p", { id: "ruling" }, el("b", {}, "Ruling: "), rulingWords(x.ruling), ` — by ${x.ruling.auditor_name || x.ruling.auditor}`) : null,
          el("h3", {}, "Record"),
          el("ol", { id: "dispute-events" }, x.events.map(eventLine)),
          el("p", { class: "muted" }, el("a", { href: `/games/${x.game_id}/replay?v=${x.version}` }, "Replay at this move"), " · ", el("a", { href: `/games/${x.game_id}/audit` }, "Audit of the game"), " · ", el("a", { href: "/docs/disputes" }, "How disputes are settled")),
        ),
        actions(x, ev.data, load),
        evidenceView(ev.data, tiles),
      ),
    );
  }
  await load();
}

main();
