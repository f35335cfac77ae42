// Leagues (docs/leagues.md): /leagues lists them and creates one; /leagues/{id} shows
// a league's players, its schedule by round (each table's game and status) and its
// standings, with Join (the link's holder) and Start (its creator) while it is open;
// a finished league says so (L12), a cancelled one why (L11).

import { api, el, me, nav, problemText, toast } from "./api.js";
import { _, ngettext, number } from "./i18n.js";

const STATUS = {
  scheduled: _("scheduled"),
  opening: _("opening…"),
  open: _("open"),
  setup: _("setting up"),
  playing: _("playing"),
  ended: _("over"),
  not_played: _("not played"),
};

/** A translated message with elements in it: each {field} named in ``parts`` becomes its element or text. */
function withElements(text, parts) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((piece, i) => (i % 2 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece)).filter((piece) => piece !== "");
}

/** Where a league is: open, round n of m, finished (L12) or cancelled (L11). */
function progressOf(l, open) {
  if (l.status === "open") return open;
  if (l.status === "finished") return ngettext("finished after {n} round", "finished after {n} rounds", l.rounds);
  if (l.status === "cancelled") return _("cancelled: its creator's account was deleted before it started");
  return _("round {current} of {rounds}", { current: l.current_round, rounds: l.rounds });
}

function problem(r) {
  return el("p", { class: "error", role: "alert" }, problemText(r.data));
}

function leagueRow(l) {
  const progress = progressOf(l, _("open for players"));
  return el(
    "li",
    { class: "league", "data-league": l.league_id },
    el("a", { href: `/leagues/${l.league_id}` }, l.name),
    el("span", { class: "muted" }, " — ", _("tables of {size}, by {creator}, {progress}", { size: l.table_size, creator: l.creator_name || l.creator, progress })),
  );
}

function numberField(id, label, value, min, max) {
  return el("label", {}, label, " ", el("input", { id, type: "number", value: String(value), min: String(min), max: String(max) }));
}

function createForm() {
  const size = el("select", { id: "league-size" }, [2, 3, 4, 5, 6].map((n) => el("option", { value: String(n) }, ngettext("{n} player", "{n} players", n))));
  const clock = el(
    "select",
    { id: "league-clock" },
    [["none", _("No clock")], ["move", _("Time per decision")], ["fischer", _("Fischer (base + increment)")]].map(([v, t]) => el("option", { value: v }, t)),
  );
  const error = el("div", { id: "league-error" });
  const form = el(
    "form",
    { id: "league-form", class: "card" },
    el("h2", {}, _("Create a league")),
    el("label", {}, _("Name"), " ", el("input", { id: "league-name", required: true, maxlength: "80" })),
    el("label", {}, _("Table size"), " ", size),
    el("label", {}, _("Players (account ids or exact names, one a line; you play too)"), " ", el("textarea", { id: "league-players", rows: "4" })),
    el("label", {}, el("input", { id: "league-link", type: "checkbox" }), " ", _("a join link, for players to join until it starts")),
    el("label", {}, _("Clock"), " ", clock),
    numberField("league-move", _("Seconds per decision"), 86400, 5, 2592000),
    numberField("league-base", _("Base seconds"), 604800, 10, 2592000),
    numberField("league-increment", _("Increment seconds"), 3600, 0, 86400),
    el("button", { type: "submit" }, _("Create")),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const options = { time_control: clock.value };
    if (clock.value === "move") options.move_seconds = Number(document.getElementById("league-move").value);
    if (clock.value === "fischer") {
      options.base_seconds = Number(document.getElementById("league-base").value);
      options.increment_seconds = Number(document.getElementById("league-increment").value);
    }
    const players = document.getElementById("league-players").value.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
    const r = await api("POST", "/leagues", {
      name: document.getElementById("league-name").value,
      table_size: Number(size.value),
      options,
      players,
      link: document.getElementById("league-link").checked,
    });
    if (!r.ok) {
      error.replaceChildren(problem(r));
      return;
    }
    location.assign(`/leagues/${r.data.league_id}`);
  });
  return form;
}

async function listPage(main) {
  const r = await api("GET", "/leagues?limit=100");
  const list = el("ul", { id: "leagues", class: "leagues" });
  if (!r.ok) list.append(el("li", { class: "error" }, problemText(r.data)));
  else if (!r.data.leagues.length) list.append(el("li", { class: "muted" }, _("No league yet.")));
  else list.append(...r.data.leagues.map(leagueRow));
  main.replaceChildren(
    el(
      "section",
      { class: "card" },
      el("h1", {}, _("Leagues")),
      el("p", { class: "muted" }, withElements(_("Round-robin leagues: every pair of players meets at a table. {link}."), { link: el("a", { href: "/docs/leagues" }, _("How leagues work")) })),
      list,
    ),
    me() ? createForm() : el("p", {}, withElements(_("{link} to create a league."), { link: el("a", { href: "/" }, _("Sign in")) })),
  );
}

function nameOf(view) {
  const names = Object.fromEntries(view.players.map((p) => [p.account_id, p.name || p.account_id]));
  return (id) => names[id] || id;
}

/** The players a round leaves out (a bye: a table's worth did not divide the players). */
function sittingOut(view, round, name) {
  const seated = new Set(round.tables.flatMap((t) => t.players));
  const out = view.players.filter((p) => !seated.has(p.account_id));
  return out.length ? el("p", { class: "muted bye" }, _("Sitting out: {players}", { players: out.map((p) => name(p.account_id)).join(", ") })) : null;
}

function schedule(view) {
  const name = nameOf(view);
  if (!view.schedule.length) return el("p", { id: "schedule", class: "muted" }, _("The schedule is made when the league starts."));
  return el(
    "div",
    { id: "schedule" },
    view.schedule.map((round) =>
      el(
        "section",
        { class: "round", "data-round": String(round.round) },
        el("h3", {}, view.status === "started" && round.round === view.current_round ? _("Round {round} (now)", { round: round.round }) : _("Round {round}", { round: round.round })),
        el(
          "ul",
          {},
          round.tables.map((t) =>
            el(
              "li",
              { class: `table ${t.status}`, "data-status": t.status },
              _("Table {table}: {players}", { table: t.table, players: t.players.filter((p) => !t.absent.includes(p)).map(name).join(", ") }),
              t.absent.length ? el("span", { class: "muted absent" }, " ", _("(without {players}: account deleted)", { players: t.absent.map(name).join(", ") })) : null,
              " — ",
              t.game_id ? el("a", { href: `/games/${t.game_id}` }, _("game: {status}", { status: STATUS[t.status] || t.status })) : STATUS[t.status] || t.status,
            ),
          ),
        ),
        sittingOut(view, round, name),
      ),
    ),
  );
}

function standings(view) {
  return el(
    "table",
    { id: "standings" },
    el("caption", {}, _("Standings: rank points (players − place at each table, ties shared), then game points")),
    el("thead", {}, el("tr", {}, ["#", _("Player"), _("Games"), _("Wins"), _("Rank points"), _("Game points")].map((h) => el("th", { scope: "col" }, h)))),
    el(
      "tbody",
      {},
      view.standings.map((s) =>
        el("tr", { "data-player": s.account_id }, el("td", {}, number(s.place)), el("td", {}, s.name || s.account_id), el("td", {}, number(s.games)), el("td", {}, number(s.wins)), el("td", {}, number(s.rank_points)), el("td", {}, number(s.game_points))),
      ),
    ),
  );
}

function actions(view, show) {
  const account = me();
  const token = new URLSearchParams(location.search).get("join");
  const member = account && view.players.some((p) => p.account_id === account.account_id);
  const parts = [];
  const post = async (path, body) => {
    const r = await api("POST", path, body);
    if (!r.ok) toast(problemText(r.data), "error");
    else show(r.data);
  };
  if (view.status === "open" && token && account && !member) {
    parts.push(el("button", { id: "league-join", type: "button", onclick: () => post(`/leagues/${view.league_id}/join`, { token }) }, _("Join this league")));
  }
  if (view.status === "open" && token && !account) parts.push(el("p", {}, withElements(_("{link} to join this league."), { link: el("a", { href: "/" }, _("Sign in")) })));
  if (view.link) parts.push(el("p", {}, withElements(_("Join link: {field}"), { field: el("input", { id: "league-link-value", readonly: true, value: `${location.origin}${view.link}`, size: "60" }) })));
  if (view.status === "open" && account && account.account_id === view.creator) {
    parts.push(el("button", { id: "league-start", type: "button", onclick: () => post(`/leagues/${view.league_id}/start`) }, _("Start the league")));
  }
  return el("div", { id: "league-actions", class: "row" }, parts);
}

async function leaguePage(main, leagueId) {
  const show = (view) => {
    const progress = progressOf(view, _("open: players may join"));
    main.replaceChildren(
      el(
        "section",
        { class: "card", id: "league", "data-status": view.status },
        el("h1", {}, view.name),
        el("p", { class: "muted" }, withElements(_("Tables of {size} · {progress} · {link}"), { size: String(view.table_size), progress, link: el("a", { href: "/leagues" }, _("all leagues")) })),
        actions(view, show),
        el("h2", {}, _("Players")),
        el("ul", { id: "players" }, view.players.map((p) => el("li", {}, p.name || p.account_id))),
        el("h2", {}, view.status === "finished" ? _("Final standings") : _("Standings")),
        standings(view),
        el("h2", {}, _("Schedule")),
        schedule(view),
      ),
    );
  };
  const r = await api("GET", `/leagues/${leagueId}`);
  if (!r.ok) {
    main.replaceChildren(el("h1", {}, _("League")), problem(r));
    return;
  }
  show(r.data);
}

async function main() {
  nav();
  const main = document.getElementById("main");
  const found = /^\/leagues\/([^/]+)$/.exec(location.pathname);
  if (found) await leaguePage(main, found[1]);
  else await listPage(main);
}

main();
