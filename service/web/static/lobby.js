// The lobby: sign up, create a game, join with a colour, start; open, running and
// finished games; my games with the ones waiting for my move first.

import { api, cap, COLOURS, el, me, nav, problemText, signIn, signOut, toast } from "./api.js";

function signUpForm() {
  const name = el("input", { id: "name", name: "name", required: true, maxlength: 64, autocomplete: "nickname", placeholder: "Your name" });
  return el(
    "form",
    {
      id: "signup",
      class: "card",
      onsubmit: async (event) => {
        event.preventDefault();
        const r = await api("POST", "/accounts", { name: name.value.trim() });
        if (!r.ok) return toast(problemText(r.data), "error");
        signIn(r.data);
        load();
      },
    },
    el("h2", {}, "Sign up"),
    el("label", { for: "name" }, "Name "),
    name,
    el("button", { type: "submit", class: "primary" }, "Sign up"),
    el("p", { class: "muted" }, "Your token stays in this browser."),
  );
}

function createForm() {
  const players = el("select", { id: "max-players", name: "max_players" }, ...[2, 3, 4, 5, 6].map((n) => el("option", { value: n, selected: n === 4 }, `${n} players`)));
  const two = el("input", { type: "checkbox", id: "two-colours" });
  const rody = el("input", { type: "checkbox", id: "free-orientation" });
  const order = el("input", { id: "tile-order", placeholder: "ocean7, tahiti, …", "aria-label": "Tiles drawn first" });
  const first = el("select", { id: "first-seat", "aria-label": "First seat" }, ...[1, 2, 3, 4, 5, 6].map((n) => el("option", { value: n }, `seat ${n} starts`)));
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
        };
        const tiles = order.value.split(",").map((t) => t.trim()).filter(Boolean);
        if (tiles.length) body.tile_order = tiles;
        const r = await api("POST", "/games", body);
        if (!r.ok) return toast(problemText(r.data), "error");
        toast(`Game ${r.data.game_id} created`);
        load();
      },
    },
    el("h2", {}, "New game"),
    players,
    el("label", {}, two, " two colours each (2 players)"),
    el("label", {}, rody, " free orientation after the first tile"),
    first,
    el("details", {}, el("summary", {}, "Testing servers only"), el("label", {}, "Tiles drawn first: ", order)),
    el("button", { type: "submit", class: "primary" }, "Create"),
  );
}

function seatsText(game) {
  return game.seats.map((s) => s.colours.map(cap).join("+")).join(", ") || "nobody yet";
}

function openRow(game) {
  const account = me();
  const taken = new Set(game.seats.flatMap((s) => s.colours));
  const seated = account && game.seats.some((s) => s.player_id === account.account_id);
  const free = COLOURS.filter((c) => !taken.has(c));
  const picker = (label, index) =>
    el("select", { "aria-label": label, "data-colour": index }, ...free.map((c, i) => el("option", { value: c, selected: i === index }, cap(c))));
  // the two-player variant plays two colours each (R5)
  const pickers = game.two_colours_each
    ? [picker(`first colour for ${game.game_id}`, 0), picker(`second colour for ${game.game_id}`, 1)]
    : [picker(`colour for ${game.game_id}`, 0)];
  const join = el("button", {
    type: "button",
    "data-action": "join",
    disabled: !account || seated || game.seats.length >= game.max_players,
    onclick: async () => {
      const body = game.two_colours_each ? { colours: pickers.map((p) => p.value) } : { colour: pickers[0].value };
      const r = await api("POST", `/games/${game.game_id}/seats`, body);
      if (!r.ok) return toast(problemText(r.data), "error");
      load();
    },
  }, "Join");
  const start = el("button", {
    type: "button",
    "data-action": "start",
    disabled: !seated || game.seats.length < 2,
    onclick: async () => {
      const r = await api("POST", `/games/${game.game_id}/start`);
      if (!r.ok) return toast(problemText(r.data), "error");
      location.href = `/games/${game.game_id}`;
    },
  }, "Start");
  return el("li", { "data-game": game.game_id }, el("a", { href: `/games/${game.game_id}` }, game.game_id), ` · up to ${game.max_players}${game.two_colours_each ? " · two colours each" : ""} · ${seatsText(game)} `, ...pickers, join, start);
}

function gameRow(game, mine) {
  const turn = game.active_colour ? ` · ${cap(game.active_colour)} to play` : "";
  const flag = mine && game.my_move ? el("strong", { class: "your-move" }, " your move") : null;
  return el("li", { "data-game": game.game_id }, el("a", { href: `/games/${game.game_id}` }, game.game_id), ` · ${game.status} · turn ${game.turn} · ${seatsText(game)}${turn}`, flag, " · ", el("a", { href: `/games/${game.game_id}/replay` }, "replay"));
}

function list(title, id, games, row) {
  return el("section", { class: "card", id }, el("h2", {}, title), games.length ? el("ul", {}, games.map(row)) : el("p", { class: "muted" }, "None."));
}

async function load() {
  nav();
  const account = me();
  const [open, setup, playing, ended, mine] = await Promise.all([
    api("GET", "/lobby?status=open"),
    api("GET", "/lobby?status=setup"),
    api("GET", "/lobby?status=playing"),
    api("GET", "/lobby?status=ended"),
    account ? api("GET", "/me/games") : Promise.resolve({ ok: true, data: { games: [] } }),
  ]);
  if (account && mine.status === 401) {
    // the server no longer knows this token (a reset database): sign in afresh
    signOut();
    toast("Your sign-in is no longer valid; please sign up again.", "error");
    return load();
  }
  const parts = [];
  if (account) {
    parts.push(
      el("p", {}, `Signed in as ${account.name}. `, el("button", { type: "button", onclick: () => { signOut(); load(); } }, "Sign out")),
      list("My games", "my-games", mine.ok ? mine.data.games : [], (g) => gameRow(g, true)),
      createForm(),
    );
  } else {
    parts.push(signUpForm());
  }
  parts.push(
    list("Open games", "open-games", open.ok ? open.data.games : [], openRow),
    list("Running games", "running-games", [...(setup.data?.games || []), ...(playing.data?.games || [])], (g) => gameRow(g, false)),
    list("Finished games", "finished-games", ended.ok ? ended.data.games : [], (g) => gameRow(g, false)),
  );
  document.getElementById("main").replaceChildren(el("div", { class: "lobby" }, ...parts));
}

load();
setInterval(() => {
  if (!document.querySelector("form:focus-within, select:focus")) load();
}, 5000);
