// A player's page (docs/profiles.md): name, games by heading with their results (paged),
// the clocks they play, the disputes they opened (to themselves only), and on one's own
// page the games waiting for one's move, a change of name and the account's deletion.
// The rating section and its chart come from the ratings' read model (ratingchart.js).

import { api, colourName, el, nav, problemText, renamed, signOut, toast } from "./api.js";
import { _, lang, moment, ngettext, number } from "./i18n.js";
import { ratingCard } from "./ratingchart.js";

const PAGE = 20;
const HEADINGS = [
  ["running", _("Running")],
  ["finished", _("Finished")],
  ["open", _("Waiting to start")],
];
/** The decisions a game waits for (its pending ``kind``), in words. */
const DECISIONS = {
  setup_placement: _("setup placement"),
  turn_start: _("turn start"),
  choose_emigration: _("choose emigration"),
  landing: _("landing"),
  tile_placement: _("tile placement"),
  colonist_placement: _("colonist placement"),
};

const playerId = location.pathname.split("/").filter(Boolean)[1] || "";
let heading = "running";
let offset = 0;

const when = (iso) => (iso ? moment(iso, {}) : "");

/** A colour's name inside a sentence ("blue", "bleu", "blu"). */
const colour = (c) => colourName(c).toLocaleLowerCase(lang);

/** A translated message with elements in it: each {field} named in ``parts`` becomes its element or text. */
function withElements(text, parts) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((piece, i) => (i % 2 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece)).filter((piece) => piece !== "");
}

function duration(ms) {
  if (ms === null || ms === undefined) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return _("{s} s", { s: number(s) });
  if (s < 3600) return _("{m} min {s} s", { m: number(Math.floor(s / 60)), s: number(s % 60) });
  if (s < 86400) return _("{h} h {m} min", { h: number(Math.floor(s / 3600)), m: number(Math.floor((s % 3600) / 60)) });
  return _("{d} d {h} h", { d: number(Math.floor(s / 86400)), h: number(Math.floor((s % 86400) / 3600)) });
}

function control(tc) {
  if (tc.control === "move") return _("{duration} per move", { duration: duration(tc.move_seconds * 1000) });
  if (tc.control === "fischer") return _("Fischer {base} + {increment}", { base: duration(tc.base_seconds * 1000), increment: duration(tc.increment_seconds * 1000) });
  return _("no clock");
}

function result(game) {
  const r = game.result;
  if (!r) return game.status === "open" ? _("waiting to start") : game.status === "setup" ? _("setting up") : _("playing");
  if (r.annulled) return _("annulled by a ruling");
  if (r.won) return r.resigned ? ngettext("won, {n} point (resigned)", "won, {n} points (resigned)", r.points) : ngettext("won, {n} point", "won, {n} points", r.points);
  return r.resigned ? ngettext("rank {rank}, {n} point (resigned)", "rank {rank}, {n} points (resigned)", r.points, { rank: r.rank }) : ngettext("rank {rank}, {n} point", "rank {rank}, {n} points", r.points, { rank: r.rank });
}

function gamesCard(data) {
  const page = data.games;
  const tabs = HEADINGS.map(([key, label]) =>
    el("button", { type: "button", "data-heading": key, "aria-pressed": String(key === heading), onclick: () => { heading = key; offset = 0; load(); } }, `${label} (${number(data.counts[key])})`),
  );
  const rows = page.items.map((g) =>
    el("tr", { "data-game": g.game_id }, el("td", {}, el("a", { href: `/games/${g.game_id}` }, g.game_id)), el("td", {}, g.colours.map(colour).join(", ")), el("td", {}, number(g.players)), el("td", {}, control(g.time_control)), el("td", { class: "result" }, result(g)), el("td", {}, when(g.last_activity))),
  );
  const pager = el(
    "p",
    { class: "pager" },
    el("button", { type: "button", id: "games-prev", disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, _("Newer")),
    " ",
    el("button", { type: "button", id: "games-next", disabled: !page.has_more, onclick: () => { offset += PAGE; load(); } }, _("Older")),
  );
  return el(
    "section",
    { class: "card", id: "games" },
    el("h2", {}, _("Games")),
    el("p", { class: "tabs" }, ...tabs),
    rows.length
      ? el("table", {}, el("thead", {}, el("tr", {}, ...[_("Game"), _("Colours"), _("Players"), _("Clock"), _("Result"), _("Last activity")].map((h) => el("th", {}, h)))), el("tbody", { id: "game-rows" }, ...rows))
      : el("p", { class: "muted", id: "no-games" }, _("None.")),
    pager,
  );
}

function clocksCard(data) {
  const rows = data.clocks.map((c) => el("tr", {}, el("td", {}, control(c.time_control)), el("td", {}, number(c.games)), el("td", {}, number(c.decisions)), el("td", {}, duration(c.used_ms)), el("td", {}, duration(c.average_ms))));
  return el(
    "section",
    { class: "card", id: "clocks" },
    el("h2", {}, _("Clocks used")),
    rows.length ? el("table", {}, el("thead", {}, el("tr", {}, ...[_("Time control"), _("Games"), _("Timed decisions"), _("Time used"), _("Per decision")].map((h) => el("th", {}, h)))), el("tbody", {}, ...rows)) : el("p", { class: "muted" }, _("No games started yet.")),
  );
}

/** A dispute of one's own in a line, by its status (each status its own sentence). */
function disputeLine(status) {
  if (status === "open") return _("{dispute} on game {game} — open, opened {opened}");
  if (status === "ruled") return _("{dispute} on game {game} — ruled, opened {opened}");
  if (status === "withdrawn") return _("{dispute} on game {game} — withdrawn, opened {opened}");
  return _("{dispute} on game {game} — {status}, opened {opened}");
}

function disputesCard(data) {
  if (!data.disputes) return null;
  const items = data.disputes.map((d) =>
    el(
      "li",
      { "data-dispute": d.dispute_id },
      withElements(disputeLine(d.status), { dispute: el("a", { href: `/disputes/${d.dispute_id}` }, d.reason || _("dispute")), game: d.game_id, status: d.status, opened: when(d.opened_at) }),
    ),
  );
  return el("section", { class: "card", id: "disputes" }, el("h2", {}, _("Disputes you opened")), el("p", { class: "muted" }, _("Only you (and the auditors) see this list.")), items.length ? el("ul", {}, ...items) : el("p", { class: "muted" }, _("None.")));
}

async function queueCard() {
  const r = await api("GET", "/me/queue?limit=100");
  if (!r.ok) return null;
  const items = r.data.games.map((g) => {
    const values = { game: el("a", { href: `/games/${g.game_id}` }, g.game_id), decision: DECISIONS[g.decision] || g.decision.replaceAll("_", " "), colour: colour(g.colour), waited: duration(g.waited_ms), left: duration(g.time_left_ms) };
    return el("li", { "data-game": g.game_id }, withElements(g.time_left_ms === null ? _("{game} — {decision} ({colour}), waiting {waited}") : _("{game} — {decision} ({colour}), waiting {waited}, {left} left"), values));
  });
  return el("section", { class: "card", id: "queue" }, el("h2", {}, _("Your move ({count})", { count: number(r.data.count) })), items.length ? el("ol", {}, ...items) : el("p", { class: "muted" }, _("No game waits for you.")));
}

function renameCard(data) {
  const input = el("input", { id: "new-name", maxlength: 64, required: true, value: data.name, "aria-label": _("New name") });
  return el(
    "section",
    { class: "card", id: "rename" },
    el("h2", {}, _("Your name")),
    el("p", { class: "muted" }, _("Shown from now on wherever your name appears. Records keep the name each move was made under.")),
    el(
      "form",
      {
        id: "rename-form",
        onsubmit: async (event) => {
          event.preventDefault();
          const r = await api("PUT", "/me/name", { name: input.value, was: data.name });
          if (!r.ok) return toast(problemText(r.data), "error");
          renamed(r.data.name);
          toast(_("You are {name} now.", { name: r.data.name }));
          load();
        },
      },
      input,
      el("button", { type: "submit" }, _("Change name")),
    ),
  );
}

function deleteCard(data) {
  const confirm = el("input", { id: "delete-confirm", maxlength: 64, autocomplete: "off", "aria-label": _("Type your name to confirm") });
  return el(
    "section",
    { class: "card danger", id: "delete" },
    el("h2", {}, _("Delete this account")),
    el("p", {}, _("For good: your games stay (anyone can still verify them) under the name “deleted player …”; your seats in games under way are resigned; your sign-ins, passkeys, address, notes and notification settings are removed. The records of your games keep the name each move was made under.")),
    el(
      "form",
      {
        id: "delete-form",
        onsubmit: async (event) => {
          event.preventDefault();
          const r = await api("POST", "/me/deletion", { confirm: confirm.value });
          if (!r.ok) return toast(problemText(r.data), "error");
          await signOut(true);
          location.href = `/players/${r.data.account_id}`;
        },
      },
      el("label", {}, withElements(_("Type your name ({name}) to confirm: {field}"), { name: data.name, field: confirm })),
      el("button", { type: "submit", id: "delete-account" }, _("Delete my account")),
    ),
  );
}

/** Since when the player plays, and how many games they finished and won. */
function record(data) {
  const values = { finished: ngettext("{n} finished", "{n} finished", data.counts.finished), won: ngettext("{n} won", "{n} won", data.counts.won) };
  return data.since ? _("Playing since {since} · {finished}, {won}", { since: data.since, ...values }) : _("{finished}, {won}", values);
}

async function load() {
  nav();
  const r = await api("GET", `/accounts/${encodeURIComponent(playerId)}/profile?games=${heading}&limit=${PAGE}&offset=${offset}`);
  const main = document.getElementById("main");
  if (!r.ok) {
    main.replaceChildren(el("h1", {}, _("Player")), el("p", { class: "warning" }, problemText(r.data)));
    return;
  }
  const data = r.data;
  document.title = `Tongiaki — ${data.name}`;
  const own = data.own && !data.deleted;
  // (replaceChildren writes a null as the text "null": the parts a stranger is not shown
  // are left out)
  const parts = [
    el("h1", { id: "player-name" }, data.name, data.deleted ? el("span", { class: "muted" }, " ", _("(account deleted)")) : null),
    el("p", { class: "muted" }, record(data)),
    await ratingCard(playerId),
    own ? await queueCard() : null,
    gamesCard(data),
    clocksCard(data),
    disputesCard(data),
    own ? renameCard(data) : null,
    own ? deleteCard(data) : null,
  ];
  main.replaceChildren(...parts.filter((part) => part !== null && part !== undefined));
}

load();
