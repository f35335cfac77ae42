// One dispute: what was disputed and why, its notes and ruling, and the evidence —
// the command with actor, time and payload, the board before and after it, what else
// the player could have done, refusals around it, the events with their rules and
// hashes, the receipt, a re-run under today's engine and the draw check. Auditors
// assign, pause and rule here; the player who opened it can withdraw it.

import { api, el, me, nav, problemText, ruleLink, toast } from "./api.js";
import { Board } from "./board.js";
import { DECISIONS, pieces, REASONS, rulingWords, STATUSES, when } from "./disputing.js";
import { _, ngettext } from "./i18n.js";
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
    pieces(_("{type} by {actor} at {when}"), { type: el("b", {}, e.type.replace(/([a-z])([A-Z])/g, "$1 $2")), actor: who(e.actor), when: when(e.at) }),
    " ",
    data.text ? el("q", {}, data.text) : null,
    data.reasoning ? el("q", {}, data.reasoning) : null,
    details(_("hash"), el("code", {}, e.hash)),
  );
}

function boardFigure(id, caption) {
  return el("figure", { class: "evidence-board" }, el("div", { id, class: "board-host" }), el("figcaption", {}, caption));
}

function commandBlock(c, title) {
  if (!c) return el("p", { class: "muted" }, _("The dispute names no command."));
  const refused = c.outcome === "rejected";
  return el(
    "div",
    { class: `command ${c.outcome}` },
    el(
      "p",
      {},
      pieces(_("{title} {command} by {actor}, received {when} — {outcome}"), {
        title: el("b", {}, title),
        command: c.payload?.type || "?",
        actor: who(c.actor),
        when: when(c.received_at),
        outcome: refused
          ? el("span", { class: "rejected" }, _("refused ({code})", { code: c.rejection?.code }), c.rejection?.rule ? [" ", ruleLink(c.rejection.rule)] : null)
          : el("span", { class: "ok" }, _("accepted, events {first}–{last}", { first: c.versions[0], last: c.versions[1] })),
      }),
    ),
    details(_("payload"), json(c.payload)),
  );
}

/** The draw check in words: against the revealed seed, or the server's kept one. */
function drawsWords(draws) {
  if (draws.ok === null) return _("Draws not checked: {why}.", { why: draws.why });
  if (draws.seed_revealed) {
    return draws.ok
      ? ngettext("{n} draw checked against the revealed seed: all fair.", "{n} draws checked against the revealed seed: all fair.", draws.checked)
      : ngettext("{n} draw checked against the revealed seed: MISMATCH.", "{n} draws checked against the revealed seed: MISMATCH.", draws.checked);
  }
  return draws.ok
    ? ngettext(
        "{n} draw so far checked by the server against its kept seed: yes, it matches the commitment (the order stays secret until the end).",
        "{n} draws so far checked by the server against its kept seed: yes, they match the commitment (the order stays secret until the end).",
        draws.checked,
      )
    : ngettext(
        "{n} draw so far checked by the server against its kept seed: NO (the order stays secret until the end).",
        "{n} draws so far checked by the server against its kept seed: NO (the order stays secret until the end).",
        draws.checked,
      );
}

function evidenceView(ev, tiles) {
  const rerun = ev.rerun;
  const draws = ev.draws;
  const section = el(
    "section",
    { class: "card evidence", id: "evidence" },
    el("h3", {}, _("Evidence")),
    el(
      "p",
      { id: "anchor", class: ev.anchor.matches ? "ok" : "rejected" },
      !ev.anchor.matches
        ? _("The record at the disputed version no longer has the hash it had when the dispute was opened.")
        : ev.game.chain_ok
          ? _("The record at version {version} still has the hash it had when the dispute was opened; the game's chain checks out.", { version: ev.anchor.version })
          : _("The record at version {version} still has the hash it had when the dispute was opened; the game's chain checks FAILED.", { version: ev.anchor.version }),
    ),
    commandBlock(ev.commands.disputed, _("The disputed command:")),
    el("div", { class: "boards" }, boardFigure("board-before", _("Before it (version {version})", { version: ev.position_before.version })), boardFigure("board-after", _("After it (version {version})", { version: ev.position_after.version }))),
    el("p", {}, ngettext("At the position before, {n} legal command was open to the player.", "At the position before, {n} legal commands were open to the player.", ev.legal_before.length)),
    el(
      "details",
      { id: "legal-before" },
      el("summary", {}, _("What else the player could have done")),
      el("ul", {}, (ev.legal_before_words || []).map((w) => el("li", {}, w))),
      details(_("as commands"), json(ev.legal_before)),
    ),
    ev.commands.rejected_around.length ? el("div", {}, el("p", {}, _("Refused around it:")), ...ev.commands.rejected_around.map((c) => commandBlock(c, _("Refused:")))) : null,
    el("p", {}, _("The events it caused:")),
    el("ol", { id: "evidence-events" }, ev.events.map((e) => el("li", { value: e.version }, `${e.type} `, e.rule ? ruleLink(e.rule) : null, details(_("hash"), el("code", {}, e.hash))))),
    el("p", { id: "receipt" }, pieces(_("The player's receipt: version {version}, hash {hash}"), { version: ev.receipt.version, hash: el("code", {}, (ev.receipt.hash || "").slice(0, 16) + "…") })),
    el(
      "p",
      { id: "rerun" },
      !rerun.ran
        ? _("Not re-run: {why}.", { why: rerun.why })
        : rerun.same
          ? _("Re-run under today's engine ({engine}, {rules}): the same events.", { engine: rerun.engine, rules: rerun.rules })
          : _("Re-run under today's engine differs: {difference}.", { difference: rerun.difference || rerun.refused }),
    ),
    el("p", { id: "draws" }, drawsWords(draws)),
    details(_("commitment, entropy and versions"), json({ commitment: ev.game.deck_commitment, entropy: ev.game.entropy, versions: ev.versions })),
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
  const note = el("textarea", { id: "note-text", rows: "2", maxlength: "2000", placeholder: _("A note for the record") });
  const parts = [
    el("form", { id: "note-form", onsubmit: (e) => (e.preventDefault(), post(`/disputes/${disputeId}/notes`, { text: note.value }, _("Note added."))) }, note, el("button", { type: "submit" }, _("Add the note"))),
  ];
  if (account.account_id === d.opened_by.account) {
    parts.push(el("button", { type: "button", id: "withdraw", onclick: () => post(`/disputes/${disputeId}/withdraw`, {}, _("Dispute withdrawn.")) }, _("Withdraw the dispute")));
  }
  if (auditor) {
    const running = ["setup", "playing"].includes(ev.game.phase);
    parts.push(
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", id: "assign-me", onclick: () => post(`/disputes/${disputeId}/assign`, {}, _("Assigned to you.")) }, _("Assign to me")),
        running && !ev.game.paused ? el("button", { type: "button", id: "pause", onclick: () => post(`/games/${d.game_id}/pause`, { dispute_id: disputeId }, _("Game paused.")) }, _("Pause the game")) : null,
        ev.game.paused ? el("button", { type: "button", id: "resume", onclick: () => post(`/games/${d.game_id}/resume`, { dispute_id: disputeId }, _("Game resumed.")) }, _("Resume the game")) : null,
      ),
      rulingForm(d, ev, post),
    );
  }
  return el("section", { class: "card", id: "actions" }, el("h3", {}, _("Act")), ...parts);
}

function rulingForm(d, ev, post) {
  const decision = el("select", { id: "decision", "aria-label": _("Decision") }, Object.entries(DECISIONS).map(([v, t]) => el("option", { value: v }, t)));
  const reasoning = el("textarea", { id: "reasoning", rows: "3", maxlength: "2000", placeholder: _("Reasoning, in words") });
  const rules = el("input", { id: "rules", value: "D4", "aria-label": _("Rules relied on"), placeholder: "R7, D4" });
  const toVersion = el("input", { id: "to-version", type: "number", min: "1", value: String(ev.position_before.version), "aria-label": _("Rewind to version") });
  const annul = el("input", { id: "annul", type: "checkbox" });
  const ranking = el("input", { id: "ranking", placeholder: _("player ids, best first"), "aria-label": _("Ranking") });
  const extra = el("div", { id: "decision-extra" });
  const update = () => {
    extra.replaceChildren(
      ...(decision.value === "rewind" ? [el("label", {}, pieces(_("Continue from version {version} (the position before the disputed command by default)"), { version: toVersion }))] : []),
      ...(decision.value === "result_amended" ? [el("label", {}, annul, " ", _("Annul the game")), el("label", {}, _("or rank:"), " ", ranking)] : []),
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
      el("p", {}, el("b", {}, _("This ruling will:"))),
      el("ul", {}, lines.map((l) => el("li", {}, l))),
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", id: "confirm-ruling", class: "primary", onclick: () => post(`/disputes/${disputeId}/ruling`, b, _("Ruled.")) }, _("Confirm the ruling")),
        el("button", { type: "button", id: "cancel-ruling", onclick: () => (confirmBox.hidden = true) }, _("Back")),
      ),
    );
    confirmBox.hidden = false;
    confirmBox.querySelector("#confirm-ruling").focus();
  };
  return el(
    "form",
    { id: "ruling-form", class: "ruling-form", onsubmit: (e) => (e.preventDefault(), review()) },
    el("h4", {}, _("Rule")),
    el("label", {}, _("Decision"), " ", decision),
    extra,
    reasoning,
    el("label", {}, _("Rules relied on"), " ", rules),
    el("button", { type: "submit", id: "rule", class: "primary" }, _("Issue the ruling…")),
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
  if (b.decision === "stands") return [_("leave the record as it stands: nothing in the game changes (D4);"), _("close the dispute with your reasoning, for the players and the record.")];
  if (b.decision === "rewind") {
    const version = b.to_version;
    const lines = [
      head
        ? ngettext(
            "set aside every move after version {version} — {n} step, up to version {head}; they stay in the record, marked as superseded (D6);",
            "set aside every move after version {version} — {n} steps, up to version {head}; they stay in the record, marked as superseded (D6);",
            head - version,
            { version, head },
          )
        : _("set aside every move after version {version}; they stay in the record, marked as superseded (D6);", { version }),
      _("deal the tiles not yet drawn at version {version} anew, from a fresh seed the server commits to now (D6);", { version }),
      _("continue the game from the position at version {version}, with the player then to move.", { version }),
    ];
    if (now) lines.push(_("undo the result: {result} — the game is under way again and no result stands until it ends.", { result: now }));
    return lines;
  }
  if (b.annulled) return [now ? _("annul the result ({result}): the game counts for nobody (D4).", { result: now }) : _("annul the result: the game counts for nobody (D4).")];
  const ids = game.ok ? game.data.players.map((p) => p.player_id) : [];
  const ranking = b.ranking || [];
  const unknown = ranking.filter((id) => !ids.includes(id));
  if (!ranking.length || unknown.length || new Set(ranking).size !== ids.length || ranking.length !== ids.length) {
    const every = game.ok ? game.data.players.map((p) => `${p.name || "?"}: ${p.player_id}`).join(", ") : "";
    return {
      blocked: unknown.length
        ? _("Nothing to confirm: tick \"Annul the game\", or rank every player once, best first, by player id (not a player of this game: {unknown}). The players: {players}.", { unknown: unknown.join(", "), players: every })
        : _("Nothing to confirm: tick \"Annul the game\", or rank every player once, best first, by player id. The players: {players}.", { players: every }),
    };
  }
  const order = ranking.map((id) => names?.byId[id]?.name || id).join(", ");
  return [now ? _("replace the ranking ({result}) by: {order} (D4).", { result: now, order }) : _("replace the ranking by: {order} (D4).", { order })];
}

async function main() {
  nav();
  const main = document.getElementById("main");
  if (!me()) {
    main.replaceChildren(el("h1", {}, _("Dispute")), el("p", {}, pieces(_("Disputes are for the game's players and auditors: {signIn} first."), { signIn: el("a", { href: "/" }, _("sign in")) })));
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
          el("h1", {}, _("Dispute: {reason}", { reason: REASONS[x.reason] || x.reason })),
          el(
            "p",
            {},
            pieces(_("Opened by {name} on {game} at version {version}, {when}."), {
              name: x.opened_by.name || x.opened_by.account,
              game: el("a", { href: `/games/${x.game_id}` }, _("game {game}", { game: x.game_id })),
              version: x.version,
              when: when(x.opened_at),
            }),
          ),
          x.text ? el("blockquote", {}, x.text) : null,
          el("p", { id: "dispute-status" }, x.assigned_to ? _("Status: {status} · assigned", { status: STATUSES[x.status] || x.status }) : _("Status: {status}", { status: STATUSES[x.status] || x.status })),
          x.ruling ? el("p", { id: "ruling" }, el("b", {}, _("Ruling:"), " "), _("{ruling} — by {auditor}", { ruling: rulingWords(x.ruling), auditor: x.ruling.auditor_name || x.ruling.auditor })) : null,
          el("h3", {}, _("Record")),
          el("ol", { id: "dispute-events" }, x.events.map(eventLine)),
          el("p", { class: "muted" }, el("a", { href: `/games/${x.game_id}/replay?v=${x.version}` }, _("Replay at this move")), " · ", el("a", { href: `/games/${x.game_id}/audit` }, _("Audit of the game")), " · ", el("a", { href: "/docs/disputes" }, _("How disputes are settled"))),
        ),
        actions(x, ev.data, load),
        evidenceView(ev.data, tiles),
      ),
    );
  }
  await load();
}

main();
