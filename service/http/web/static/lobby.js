// The lobby: sign up or sign in with a token, open a game (and sit at it), join
// with a colour, start; open, running and finished games, named by their players;
// my games, the ones waiting for my move first.

import { api, colourChip, colourName, COLOURS, el, me, nav, problemText, signInWithToken, signOut, toast, withNodes } from "./api.js";
import { _, list, ngettext, number } from "./i18n.js";
import { signInWithPasskey, supported } from "./passkeys.js";
import { agoText, controlText, PRESETS, startTicking, timeLeft } from "./clocks.js";
import { invitationsCard, linkCard, privateFields } from "./invitations.js";
import { seatName } from "./words.js";

let freshToken = null; // the token of an account just made: shown on this page, then gone
let ways = null; // how this server signs people in (GET /sign-in)

function signUpForm() {
  const name = el("input", { id: "name", name: "name", required: true, maxlength: 64, autocomplete: "nickname", placeholder: _("Your name") });
  return el(
    "form",
    {
      id: "signup",
      class: "card",
      onsubmit: async (event) => {
        event.preventDefault();
        const r = await api("POST", "/accounts", { name: name.value.trim() });
        if (!r.ok) return toast(problemText(r.data), "error");
        const signed = await signInWithToken(r.data.token);
        if (!signed.ok) return toast(problemText(signed.data), "error");
        freshToken = r.data.token; // shown once, below; kept nowhere
        load();
      },
    },
    el("h2", {}, _("Sign up")),
    el("label", { for: "name" }, _("Name"), " "),
    name,
    el("button", { type: "submit", class: "primary" }, _("Sign up")),
    el("p", { class: "muted" }, withNodes(_("Then add an e-mail address or a passkey on your account's page, to sign in anywhere ({how})."), { how: el("a", { href: "/docs/accounts" }, _("how")) })),
  );
}

function signInForm() {
  const email = el("input", { id: "signin-address", type: "email", name: "email", required: true, autocomplete: "email", placeholder: "you@example.org", "aria-label": _("E-mail address") });
  const token = el("input", { id: "token", name: "token", required: true, autocomplete: "off", placeholder: _("Paste a token"), "aria-label": _("Token") });
  const done = (r) => {
    if (!r.ok) return toast(r.status === 401 && r.data?.code === "bad_token" ? _("That token names no account on this server.") : problemText(r.data), "error");
    toast(r.data.kind === "auditor" ? _("Signed in as {name} (auditor)", { name: r.data.name }) : _("Signed in as {name}", { name: r.data.name }));
    if (r.data.kind === "auditor") {
      location.href = "/disputes";
      return;
    }
    load();
  };
  return el(
    "section",
    { class: "card", id: "signin-ways" },
    el("h2", {}, _("Sign in")),
    ways?.email === false ? el("p", { class: "muted", id: "signin-no-email" }, _("This server sends no mail: sign in with a passkey or a token.")) : el(
      "form",
      {
        id: "signin-email",
        onsubmit: async (event) => {
          event.preventDefault();
          const r = await api("POST", "/sign-in/email", { email: email.value.trim() });
          if (!r.ok) return toast(problemText(r.data), "error");
          toast(_("If an account signs in with this address, a link is on its way: open it in this browser within 15 minutes."));
          document.getElementById("signin-sent").hidden = false;
        },
      },
      el("label", { for: "signin-address" }, _("By e-mail"), " "),
      email,
      el("button", { type: "submit" }, _("Mail me a link")),
      el("p", { class: "muted", id: "signin-sent", hidden: true }, _("Sent. On the embedded server without SMTP_URL the mail is printed on the server's console.")),
    ),
    el("p", {}, el("button", { type: "button", id: "signin-passkey", disabled: !supported(), onclick: async () => done(await signInWithPasskey()) }, _("Sign in with a passkey"))),
    el(
      "form",
      {
        id: "signin",
        onsubmit: async (event) => {
          event.preventDefault();
          done(await signInWithToken(token.value));
        },
      },
      el("label", { for: "token" }, _("With a token"), " "),
      token,
      el("button", { type: "submit" }, _("Sign in")),
      el("p", { class: "muted" }, withNodes(_("Auditors: the token {command} printed."), { command: el("code", {}, "tongiaki auditor create") })),
    ),
  );
}

/** The account's card: its token once (just signed up), what it risks, sign out. */
function accountCard(account) {
  const fresh = freshToken;
  const card = el("section", { class: "card", id: "account" });
  if (fresh) {
    card.append(
      el("p", {}, withNodes(_("Your token, shown this once (for programs, or to sign in elsewhere): {token}"), { token: el("code", { id: "my-token" }, fresh) }), " ", el("button", { type: "button", id: "token-kept", onclick: () => { freshToken = null; load(); } }, _("I kept it"))),
    );
  }
  if (account.recoverable === false) {
    card.append(el("p", { class: "warning", id: "account-risk" }, _("This account has no e-mail address and no passkey: if this browser forgets its sign-in, the account and its games are lost."), " ", el("a", { href: "/account" }, _("Add one now")), "."));
  }
  card.append(el("p", {}, el("a", { href: "/account" }, _("Account, sessions and passkeys")), " · ", el("button", { type: "button", id: "sign-out", onclick: async () => { await signOut(); load(); } }, _("Sign out"))));
  return card;
}

function colourPicker(id, label, free, index) {
  return el("select", { id, "aria-label": label, "data-colour": index }, ...free.map((c, i) => el("option", { value: c, selected: i === index }, colourName(c))));
}

function createForm() {
  const players = el("select", { id: "max-players", name: "max_players", "aria-label": _("Players") }, ...[2, 3, 4, 5, 6].map((n) => el("option", { value: n, selected: n === 4 }, ngettext("{n} player", "{n} players", n))));
  const lastPlayers = sessionStorage.getItem("tongiaki.maxPlayers");
  if (lastPlayers) players.value = lastPlayers;
  const two = el("input", { type: "checkbox", id: "two-colours", disabled: true });
  const twoHint = el("span", { class: "muted", id: "two-colours-hint" }, " ", _("(2 players only)"));
  const rody = el("input", { type: "checkbox", id: "free-orientation" });
  const rated = el("input", { type: "checkbox", id: "rated" });
  const order = el("input", { id: "tile-order", placeholder: "ocean7, tahiti, …", "aria-label": _("Tiles drawn first") });
  const first = el("select", { id: "first-seat", "aria-label": _("First seat") }, ...[1, 2, 3, 4, 5, 6].map((n) => el("option", { value: n }, _("seat {n} starts", { n: number(n) }))));
  const clock = el("select", { id: "time-control", "aria-label": _("Clock") }, ...PRESETS.map(([value, text]) => el("option", { value }, text)));
  const away = el("input", { type: "checkbox", id: "vacation" });
  const awayLabel = el("label", { id: "vacation-label", hidden: true }, away, " ", withNodes(_("vacation applies ({rule})"), { rule: el("a", { href: "/docs/vacation" }, "V2") }));
  clock.addEventListener("change", () => {
    awayLabel.hidden = clock.value === "none";
    if (awayLabel.hidden) away.checked = false;
  });
  const mine = el("span", { class: "row", id: "my-colours" });
  const privacy = privateFields();
  const pickers = () => {
    const count = two.checked ? 2 : 1;
    mine.replaceChildren(_("Your colour:"), " ", ...Array.from({ length: count }, (unused, i) => colourPicker(`create-colour-${i}`, i ? _("Your second colour") : _("Your colour"), COLOURS, i)));
  };
  const sync = () => {
    const duo = players.value === "2";
    two.disabled = !duo;
    twoHint.hidden = duo;
    if (!duo) two.checked = false;
    pickers();
  };
  players.addEventListener("change", sync);
  two.addEventListener("change", pickers);
  sync();
  return el(
    "form",
    {
      id: "create",
      class: "card",
      onsubmit: async (event) => {
        event.preventDefault();
        const body = {
          max_players: Number(players.value),
          two_colours_each: two.checked,
          free_orientation_after_first: rody.checked,
          first_seat: Number(first.value),
          rated: rated.checked,
          ...PRESETS.find(([value]) => value === clock.value)[2],
        };
        if (away.checked) body.vacation = true;
        const tiles = order.value.split(",").map((t) => t.trim()).filter(Boolean);
        if (tiles.length) body.tile_order = tiles;
        const target = privacy.target(body);
        const r = await api("POST", target.path, target.body);
        if (!r.ok) return toast(problemText(r.data), "error");
        sessionStorage.setItem("tongiaki.maxPlayers", players.value);
        const colours = [...mine.querySelectorAll("select")].map((s) => s.value);
        const seat = await api("POST", `/games/${r.data.game_id}/seats`, two.checked ? { colours } : { colour: colours[0] });
        if (!seat.ok) toast(_("The game is open, but your seat was refused: {problem}", { problem: problemText(seat.data) }), "error");
        else toast(_("Game open: you sit at it as {colours}", { colours: list(colours.map(colourName)) }));
        if (target.private && seat.ok) location.href = `/games/${r.data.game_id}`; // its link is there
        else load();
      },
    },
    el("h2", {}, _("New game")),
    el("label", {}, players),
    el("label", {}, two, " ", _("two colours each"), twoHint),
    el("label", {}, rody, " ", _("free orientation after the first tile")),
    el("label", {}, first),
    el("label", {}, clock),
    el("label", {}, rated, " ", _("rated (moves the players' ratings; casual if not)"), " ", el("a", { href: "/docs/ratings#G1" }, "?")),
    awayLabel,
    privacy.node,
    mine,
    el("details", {}, el("summary", {}, _("Testing servers only")), el("label", {}, _("Tiles drawn first:"), " ", order)),
    el("button", { type: "submit", class: "primary" }, _("Create and sit down")),
  );
}

/** A game by its players (the host first) and the start of its id, so two games of
 * the same people are told apart. */
function gameName(game) {
  const names = game.seats.map((s) => seatName(s));
  // an open table is its first person's (a rematch may seat a bot first, B4)
  const host = game.seats.find((s) => !s.level);
  const who = game.status === "open" ? (host ? _("{name}'s table", { name: seatName(host) }) : _("A new table")) : names.join(" · ");
  return `${who} #${game.game_id.slice(0, 4)}`;
}

function winnerText(game) {
  if (game.status !== "ended" || !game.winners?.length) return "";
  const mine = me()?.account_id;
  if (game.winners.length === 1 && game.winners[0] === mine) return [" · ", _("you won")];
  const seatOf = (id) => game.seats.find((s) => s.player_id === id);
  const names = game.winners.map((id) => (id === mine ? _("you") : seatOf(id) ? seatName(seatOf(id)) : "?"));
  if (names.length === 1) return [" · ", _("{name} won", { name: names[0] })];
  return [" · ", _("shared win: {names}", { names: list(names) })];
}

function seatsList(game) {
  if (!game.seats.length) return el("span", { class: "muted" }, _("nobody yet"));
  return el("span", { class: "seats" }, ...game.seats.map((s) => el("span", { class: "seat", "data-level": s.level || null }, seatName(s), " ", ...s.colours.map((c) => colourChip(c, "")))));
}

// the bots a table seats, weakest first (docs/bots.md, B1)
const BOT_LEVELS = [
  ["greedy", _("beginner (greedy)")],
  ["mcts-easy", _("easy (mcts-easy)")],
  ["mcts", _("medium (mcts)")],
  ["mcts-strong", _("strong (mcts-strong)")],
];

/** B1: a seated player of an open, unrated table seats a bot at a level and colour(s). */
function botSeat(game, free) {
  const level = el("select", { "data-role": "bot-level", "aria-label": _("bot's level for {game}", { game: game.game_id }) }, ...BOT_LEVELS.map(([value, text], i) => el("option", { value, selected: i === 2 }, text)));
  const count = game.two_colours_each ? 2 : 1;
  const colours = Array.from({ length: count }, (unused, i) => {
    const picker = colourPicker(null, _("bot's colour for {game}", { game: game.game_id }), free, i);
    picker.dataset.role = "bot-colour";
    return picker;
  });
  const add = el("button", {
    type: "button",
    "data-action": "add-bot",
    onclick: async (event) => {
      const chosen = colours.map((p) => p.value);
      const body = count === 2 ? { bot: level.value, colours: chosen } : { bot: level.value, colour: chosen[0] };
      event.currentTarget.disabled = true; // one click, one bot
      const r = await api("POST", `/games/${game.game_id}/bots`, body);
      if (!r.ok) toast(problemText(r.data), "error");
      load();
    },
  }, _("Add a bot"));
  return [" ", level, ...colours, add, " ", el("a", { href: "/docs/bots#B1" }, "?"), " "];
}

function openRow(game) {
  const account = me();
  const taken = new Set(game.seats.flatMap((s) => s.colours));
  const seated = account && game.seats.some((s) => s.player_id === account.account_id);
  const full = game.seats.length >= game.max_players;
  const free = COLOURS.filter((c) => !taken.has(c));
  const pickers = full || seated ? [] : game.two_colours_each
    ? [colourPicker(null, _("first colour for {game}", { game: game.game_id }), free, 0), colourPicker(null, _("second colour for {game}", { game: game.game_id }), free, 1)]
    : [colourPicker(null, _("colour for {game}", { game: game.game_id }), free, 0)];
  const join = full || seated ? null : el("button", {
    type: "button",
    "data-action": "join",
    disabled: !account,
    onclick: async () => {
      const body = game.two_colours_each ? { colours: pickers.map((p) => p.value) } : { colour: pickers[0].value };
      const r = await api("POST", `/games/${game.game_id}/seats`, body);
      if (!r.ok) return toast(problemText(r.data), "error");
      load();
    },
  }, _("Join"));
  const bot = seated && !full && !game.rated ? botSeat(game, free) : [];
  const start = el("button", {
    type: "button",
    "data-action": "start",
    disabled: !seated || game.seats.length < 2,
    title: game.seats.length < 2 ? _("At least two players are needed") : "",
    onclick: async () => {
      const r = await api("POST", `/games/${game.game_id}/start`);
      if (!r.ok) return toast(problemText(r.data), "error");
      location.href = `/games/${game.game_id}`;
    },
  }, _("Start"));
  return el(
    "li",
    { "data-game": game.game_id },
    el("a", { href: `/games/${game.game_id}`, class: "game-name" }, gameName(game)),
    " · ",
    [
      ngettext("{taken} of {n} seat", "{taken} of {n} seats", game.max_players, { taken: number(game.seats.length) }),
      game.rated ? _("rated") : null,
      game.two_colours_each ? _("two colours each") : null,
      game.free_orientation_after_first ? _("free orientation") : null,
      controlText(game.time_control) ? _("clock {control}", { control: controlText(game.time_control) }) : null,
    ].filter(Boolean).join(" · "),
    " · ",
    seatsList(game),
    " ",
    full ? el("span", { class: "muted" }, _("(full)"), " ") : null,
    seated ? el("span", { class: "muted" }, _("(you sit here)"), " ") : null,
    ...pickers,
    join,
    ...bot,
    start,
  );
}

const STATUS = { setup: _("setting up"), playing: _("in play"), ended: _("over"), open: _("open") };

function gameRow(game, mine) {
  const active = game.active_colour ? game.seats.find((s) => s.colours.includes(game.active_colour)) : null;
  const turn = game.active_colour ? [" · ", _("{name} ({colour}) to play", { name: active ? seatName(active) : colourName(game.active_colour), colour: colourName(game.active_colour) })] : "";
  // with two colours each, which of mine is to move (R5)
  const which = game.two_colours_each && game.active_colour ? _("your move with {colour}", { colour: colourName(game.active_colour) }) : _("your move");
  const flag = mine && game.my_move ? el("strong", { class: "your-move" }, " · ", which) : null;
  const running = game.clock && game.clock.seat ? timeLeft(game.clock, game.clock.seat) : null;
  const clock = controlText(game.time_control)
    ? el("span", { class: "clock" }, " · ", _("clock {control}", { control: controlText(game.time_control) }), running ? [" · ", withNodes(_("{time} left"), { time: running })] : null)
    : null;
  const bots = game.seats.filter((s) => s.bot && s.bot !== "bot").map((s) => {
    const name = seatName(s);
    return s.bot === "absent" ? _("{name} is absent (the bot plays)", { name }) : _("{name} resigned (the bot plays)", { name });
  });
  return el(
    "li",
    { "data-game": game.game_id },
    el("a", { href: `/games/${game.game_id}`, class: "game-name" }, gameName(game)),
    " · ",
    [STATUS[game.status] || game.status, game.rated ? _("rated") : null, game.status === "setup" ? null : _("turn {n}", { n: number(game.turn) })].filter(Boolean).join(" · "),
    " · ",
    seatsList(game),
    turn,
    clock,
    bots.length ? el("span", { class: "tag bot" }, ` · ${bots.join(" · ")}`) : null,
    game.status === "ended" ? null : el("span", { class: "muted last-move" }, " · ", _("last move {ago}", { ago: agoText(game.last_activity) })),
    game.annulled ? [" · ", _("annulled by a ruling")] : winnerText(game),
    game.paused ? el("span", { class: "tag paused" }, " · ", _("paused by an auditor")) : null,
    game.open_disputes ? el("span", { class: "tag disputed" }, " · ", ngettext("{n} open dispute", "{n} open disputes", game.open_disputes)) : null,
    game.rulings ? el("span", { class: "tag ruled" }, " · ", ngettext("{n} ruling by an auditor", "{n} rulings by an auditor", game.rulings)) : null,
    flag,
    game.status === "ended" || game.status === "playing" ? [" · ", el("a", { href: `/games/${game.game_id}/replay` }, _("replay"))] : null,
  );
}

const PAGE = 20; // games a list shows at first, and more each time
const lists = { open: PAGE, running: PAGE, finished: PAGE, mine: PAGE }; // how many each shows now
const filters = { players: "", variant: "", clock: "", free_seat: false, player: "" };

/** The lobby query of the filters chosen (besides the status and the page). */
function filterQuery() {
  const q = new URLSearchParams();
  if (filters.players) q.set("players", filters.players);
  if (filters.variant) q.set("variant", filters.variant);
  if (filters.clock) q.set("clock", filters.clock);
  if (filters.free_seat) q.set("free_seat", "true");
  if (filters.player.trim()) q.set("player", filters.player.trim().slice(0, 64));
  return q;
}

function lobbyUrl(status, limit, before) {
  const q = filterQuery();
  q.set("status", status);
  q.set("limit", String(limit));
  if (before) q.set("before", before);
  return `/lobby?${q}`;
}

/** A list of games in a box of bounded height, with "Show more" while there is more. */
function gameList(title, id, answer, row, key) {
  const games = answer?.games || [];
  const more = key && answer?.has_more
    ? el("button", {
        type: "button",
        class: "show-more",
        "data-list": key,
        onclick: async (event) => {
          const button = event.currentTarget;
          button.disabled = true;
          if (key === "mine") {
            // my games page by offset (GET /me/games): the next look asks for more of them
            lists.mine += PAGE;
            load.shown = null;
            return load();
          }
          const status = { open: "open", running: "playing", finished: "ended" }[key];
          const r = await api("GET", lobbyUrl(status, PAGE, answer.next_before));
          if (!r.ok) {
            button.disabled = false;
            return toast(problemText(r.data), "error");
          }
          lists[key] += PAGE;
          load.shown = null; // the next look draws the longer list
          if (!button.isConnected) {
            // the lists were drawn again while this page was asked for: that drawing's
            // cursor is not this one's, so draw the longer list whole instead of
            // appending a page it may already show
            return load();
          }
          const ul = document.querySelector(`#${id} ul`);
          for (const g of r.data.games) ul?.append(row(g));
          answer.next_before = r.data.next_before;
          button.disabled = !r.data.has_more;
          button.hidden = !r.data.has_more;
        },
      }, _("Show more"))
    : null;
  const shown = games.length ? el("div", { class: "game-list" }, el("ul", {}, games.map(row))) : el("p", { class: "muted" }, filterQuery().toString() ? _("None that fits the filters.") : _("None."));
  return el("section", { class: "card", id }, el("h2", {}, title), shown, more);
}

function filterBar() {
  const select = (id, label, options, key) => {
    const s = el("select", { id, "aria-label": label, onchange: (e) => { filters[key] = e.target.value; reload(); } }, options.map(([v, t]) => el("option", { value: v }, t)));
    s.value = filters[key];
    return el("label", {}, _("{label}:", { label }), " ", s);
  };
  const search = el("input", { id: "filter-player", type: "search", maxlength: "64", placeholder: _("a player's name"), value: filters.player, "aria-label": _("Player") });
  let typing = null;
  search.addEventListener("input", (e) => {
    clearTimeout(typing);
    typing = setTimeout(() => { filters.player = e.target.value; reload(); }, 300);
  });
  const free = el("input", { id: "filter-free", type: "checkbox", onchange: (e) => { filters.free_seat = e.target.checked; reload(); } });
  free.checked = filters.free_seat;
  return el(
    "section",
    { class: "card filters", id: "filters", "aria-label": _("Filter the games") },
    el("h2", {}, _("Find a game")),
    el(
      "div",
      { class: "row" },
      select("filter-players", _("Players"), [["", _("any")], ...[2, 3, 4, 5, 6].map((n) => [String(n), number(n)])], "players"),
      select("filter-variant", _("Variant"), [["", _("any")], ["standard", _("standard")], ["two_colours", _("two colours each")], ["free_orientation", _("free orientation")]], "variant"),
      select("filter-clock", _("Clock"), [["", _("any")], ["none", _("no clock")], ["move", _("per move")], ["fischer", _("Fischer")]], "clock"),
      el("label", {}, free, " ", _("has a free seat")),
      el("label", {}, _("Player:"), " ", search),
    ),
  );
}

function reload() {
  lists.open = lists.running = lists.finished = PAGE; // a new search starts at the top
  load.shown = null;
  load();
}

async function load() {
  nav();
  const account = me(); // before any call: one may find this browser's sign-in gone
  const asked = JSON.stringify([lists, filters]);
  if (ways === null) {
    const r = await api("GET", "/sign-in");
    ways = r.ok ? r.data : {};
  }
  const [open, setup, playing, ended, mine, who, invited] = await Promise.all([
    api("GET", lobbyUrl("open", lists.open)),
    api("GET", lobbyUrl("setup", PAGE)),
    api("GET", lobbyUrl("playing", lists.running)),
    api("GET", lobbyUrl("ended", lists.finished)),
    account ? api("GET", `/me/games?limit=${lists.mine}`) : Promise.resolve({ ok: true, data: { games: [] } }),
    account ? api("GET", "/me") : Promise.resolve(null),
    account ? api("GET", "/me/invitations") : Promise.resolve(null),
  ]);
  // the lists or filters changed while asking (a page shown more, a new search): these
  // answers are of what is no longer asked for, and drawing them would undo that
  if (asked !== JSON.stringify([lists, filters])) return;
  if (account && (mine.status === 401 || who?.status === 401)) {
    // the server no longer knows this sign-in (revoked, ended, a reset database)
    await signOut(true);
    toast(_("Your sign-in is no longer valid; please sign up again."), "error");
    return load();
  }
  // the same answers as on screen: leave the page alone (a choice half made, a button
  // about to be tapped)
  // (a clock's reading changes every call: not a change worth redrawing for)
  const signature = JSON.stringify([account?.account_id, who?.data?.recoverable, freshToken, ways, open.data, setup.data, playing.data, ended.data, mine.data, invited?.data], (k, v) => (k === "now" || k === "time_left_ms" ? undefined : v));
  if (signature === load.shown && document.getElementById("main").querySelector(".lobby")) return;
  load.shown = signature;
  const key = (s) => s.id || s.getAttribute("aria-label");
  const choices = new Map([...document.querySelectorAll("#main select:not([id^=filter-])")].map((s) => [key(s), s.value]));
  const searching = document.activeElement?.id === "filter-player";
  const ticked = new Map([...document.querySelectorAll("#main input[type=checkbox]")].map((c) => [c.id, c.checked]));
  const invitees = document.getElementById("invitees")?.value;
  const parts = [linkCard()].filter(Boolean);
  if (account) {
    parts.push(
      accountCard({ ...account, recoverable: who?.data?.recoverable }),
      ...[invitationsCard(invited?.ok ? invited.data : null, load)].filter(Boolean),
      gameList(_("My games"), "my-games", mine.ok ? mine.data : null, (g) => gameRow(g, true), "mine"),
      createForm(),
    );
  } else {
    parts.push(signUpForm(), signInForm());
  }
  const running = playing.ok ? { ...playing.data, games: [...(setup.data?.games || []), ...playing.data.games] } : null;
  parts.push(
    filterBar(),
    gameList(_("Open games"), "open-games", open.ok ? open.data : null, openRow, "open"),
    gameList(_("Running games"), "running-games", running, (g) => gameRow(g, false), "running"),
    gameList(_("Finished games"), "finished-games", ended.ok ? ended.data : null, (g) => gameRow(g, false), "finished"),
  );
  // each list keeps where it was scrolled to, and the page too, when it is drawn again
  const scrolled = new Map([...document.querySelectorAll("#main .card[id] .game-list")].map((box) => [box.closest(".card").id, box.scrollTop]));
  const pageY = window.scrollY;
  document.getElementById("main").replaceChildren(el("h1", { class: "visually-hidden" }, _("Tongiaki: the lobby")), el("div", { class: "lobby" }, ...parts));
  for (const [id, top] of scrolled) {
    const box = document.querySelector(`#${id} .game-list`);
    if (box) box.scrollTop = top;
  }
  window.scrollTo(0, pageY);
  // what was picked before the lists changed stays picked, where it still can be
  const restore = (s) => {
    const before = choices.get(key(s));
    if (before === undefined || before === s.value || ![...s.options].some((o) => o.value === before)) return false;
    s.value = before;
    return true;
  };
  const count = document.getElementById("max-players");
  if (count && restore(count)) count.dispatchEvent(new Event("change"));
  const two = document.getElementById("two-colours");
  if (two && !two.disabled && ticked.get("two-colours")) {
    two.checked = true;
    two.dispatchEvent(new Event("change"));
  }
  const free = document.getElementById("free-orientation");
  if (free) free.checked = Boolean(ticked.get("free-orientation"));
  for (const s of document.querySelectorAll("#main select:not(#max-players):not([id^=filter-])")) restore(s);
  const privately = document.getElementById("private-table");
  if (privately && ticked.get("private-table")) {
    privately.checked = true;
    privately.dispatchEvent(new Event("change"));
    document.getElementById("invitation-link").checked = Boolean(ticked.get("invitation-link"));
    document.getElementById("invitees").value = invitees || "";
  }
  if (searching) {
    const search = document.getElementById("filter-player");
    search.focus();
    search.setSelectionRange(search.value.length, search.value.length);
  }
}

load();
startTicking();
setInterval(() => {
  if (!document.querySelector("form:focus-within, select:focus, #filter-player:focus")) load();
}, 5000);
