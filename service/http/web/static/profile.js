// A player's page (docs/profiles.md): name, games by heading with their results (paged),
// the clocks they play, the disputes they opened (to themselves only), and on one's own
// page the games waiting for one's move, a change of name and the account's deletion.
// The rating section and its chart come from the ratings' read model (ratingchart.js).

import { api, el, nav, problemText, renamed, signOut, toast } from "./api.js";
import { ratingCard } from "./ratingchart.js";

const PAGE = 20;
const HEADINGS = [
  ["running", "Running"],
  ["finished", "Finished"],
  ["open", "Waiting to start"],
];
const playerId = location.pathname.split("/").filter(Boolean)[1] || "";
let heading = "running";
let offset = 0;

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");

function duration(ms) {
  if (ms === null || ms === undefined) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

function control(tc) {
  if (tc.control === "move") return `${duration(tc.move_seconds * 1000)} per move`;
  if (tc.control === "fischer") return `Fischer ${duration(tc.base_seconds * 1000)} + ${duration(tc.increment_seconds * 1000)}`;
  return "no clock";
}

function result(game) {
  const r = game.result;
  if (!r) return game.status === "open" ? "waiting to start" : `${game.status === "setup" ? "setting up" : "playing"}`;
  if (r.annulled) return "annulled by a ruling";
  const rank = `${r.won ? "won" : `rank ${r.rank}`}, ${r.points} points`;
  return r.resigned ? `${rank} (resigned)` : rank;
}

function gamesCard(data) {
  const page = data.games;
  const tabs = HEADINGS.map(([key, label]) =>
    el("button", { type: "button", "data-heading": key, "aria-pressed": String(key === heading), onclick: () => { heading = key; offset = 0; load(); } }, `${label} (${data.counts[key]})`),
  );
  const rows = page.items.map((g) =>
    el("tr", { "data-game": g.game_id }, el("td", {}, el("a", { href: `/games/${g.game_id}` }, g.game_id)), el("td", {}, g.colours.join(", ")), el("td", {}, String(g.players)), el("td", {}, control(g.time_control)), el("td", { class: "result" }, result(g)), el("td", {}, when(g.last_activity))),
  );
  const pager = el(
    "p",
    { class: "pager" },
    el("button", { type: "button", id: "games-prev", disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, "Newer"),
    " ",
    el("button", { type: "button", id: "games-next", disabled: !page.has_more, onclick: () => { offset += PAGE; load(); } }, "Older"),
  );
  return el(
    "section",
    { class: "card", id: "games" },
    el("h2", {}, "Games"),
    el("p", { class: "tabs" }, ...tabs),
    rows.length
      ? el("table", {}, el("thead", {}, el("tr", {}, ...["Game", "Colours", "Players", "Clock", "Result", "Last activity"].map((h) => el("th", {}, h)))), el("tbody", { id: "game-rows" }, ...rows))
      : el("p", { class: "muted", id: "no-games" }, "None."),
    pager,
  );
}

function clocksCard(data) {
  const rows = data.clocks.map((c) => el("tr", {}, el("td", {}, control(c.time_control)), el("td", {}, String(c.games)), el("td", {}, String(c.decisions)), el("td", {}, duration(c.used_ms)), el("td", {}, duration(c.average_ms))));
  return el(
    "section",
    { class: "card", id: "clocks" },
    el("h2", {}, "Clocks used"),
    rows.length ? el("table", {}, el("thead", {}, el("tr", {}, ...["Time control", "Games", "Timed decisions", "Time used", "Per decision"].map((h) => el("th", {}, h)))), el("tbody", {}, ...rows)) : el("p", { class: "muted" }, "No games started yet."),
  );
}

function disputesCard(data) {
  if (!data.disputes) return null;
  const items = data.disputes.map((d) => el("li", { "data-dispute": d.dispute_id }, el("a", { href: `/disputes/${d.dispute_id}` }, `${d.reason || "dispute"}`), ` on game ${d.game_id} — ${d.status}, opened ${when(d.opened_at)}`));
  return el("section", { class: "card", id: "disputes" }, el("h2", {}, "Disputes you opened"), el("p", { class: "muted" }, "Only you (and the auditors) see this list."), items.length ? el("ul", {}, ...items) : el("p", { class: "muted" }, "None."));
}

async function queueCard() {
  const r = await api("GET", "/me/queue?limit=100");
  if (!r.ok) return null;
  const items = r.data.games.map((g) => el("li", { "data-game": g.game_id }, el("a", { href: `/games/${g.game_id}` }, g.game_id), ` — ${g.decision.replaceAll("_", " ")} (${g.colour}), waiting ${duration(g.waited_ms)}`, g.time_left_ms === null ? "" : `, ${duration(g.time_left_ms)} left`));
  return el("section", { class: "card", id: "queue" }, el("h2", {}, `Your move (${r.data.count})`), items.length ? el("ol", {}, ...items) : el("p", { class: "muted" }, "No game waits for you."));
}

function renameCard(data) {
  const input = el("input", { id: "new-name", maxlength: 64, required: true, value: data.name, "aria-label": "New name" });
  return el(
    "section",
    { class: "card", id: "rename" },
    el("h2", {}, "Your name"),
    el("p", { class: "muted" }, "Shown from now on wherever your name appears. Records keep the name each move was made under."),
    el(
      "form",
      {
        id: "rename-form",
        onsubmit: async (event) => {
          event.preventDefault();
          const r = await api("PUT", "/me/name", { name: input.value, was: data.name });
          if (!r.ok) return toast(problemText(r.data), "error");
          renamed(r.data.name);
          toast(`You are ${r.data.name} now.`);
          load();
        },
      },
      input,
      el("button", { type: "submit" }, "Change name"),
    ),
  );
}

function deleteCard(data) {
  const confirm = el("input", { id: "delete-confirm", maxlength: 64, autocomplete: "off", "aria-label": "Type your name to confirm" });
  return el(
    "section",
    { class: "card danger", id: "delete" },
    el("h2", {}, "Delete this account"),
    el("p", {}, "For good: your games stay (anyone can still verify them) under the name “deleted player …”; your seats in games under way are resigned; your sign-ins, passkeys, address, notes and notification settings are removed. The records of your games keep the name each move was made under."),
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
      el("label", {}, `Type your name (${data.name}) to confirm: `, confirm),
      el("button", { type: "submit", id: "delete-account" }, "Delete my account"),
    ),
  );
}

async function load() {
  nav();
  const r = await api("GET", `/accounts/${encodeURIComponent(playerId)}/profile?games=${heading}&limit=${PAGE}&offset=${offset}`);
  const main = document.getElementById("main");
  if (!r.ok) {
    main.replaceChildren(el("h1", {}, "Player"), el("p", { class: "warning" }, problemText(r.data)));
    return;
  }
  const data = r.data;
  document.title = `Tongiaki — ${data.name}`;
  const own = data.own && !data.deleted;
  // (replaceChildren writes a null as the text "null": the parts a stranger is not shown
  // are left out)
  const parts = [
    el("h1", { id: "player-name" }, data.name, data.deleted ? el("span", { class: "muted" }, " (account deleted)") : null),
    el("p", { class: "muted" }, data.since ? `Playing since ${data.since} · ${data.counts.finished} finished, ${data.counts.won} won` : `${data.counts.finished} finished, ${data.counts.won} won`),
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
