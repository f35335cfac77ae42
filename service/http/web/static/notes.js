// Private notes (docs/notes.md, N1–N6): a seated player's note on the game and one on
// the move shown on the board, each saved explicitly (Save), with a clear state: "Saved",
// "Not saved" while edited, "Saving…", or what the server refused. The panel shows only
// for the game's seated players (the server answers anyone else 403, N1); the move's
// note follows the version on the board (the ``data-version`` of ``source``).

import { api, el, problemText } from "./api.js";
import { _ } from "./i18n.js";

const MAX_TEXT = 4000; // N3

/** A message whose ``{fields}`` are elements or texts, as pieces for el(). */
function pieces(text, fields) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((part, i) => (i % 2 ? (part in fields ? fields[part] : `{${part}}`) : part)).filter((part) => part !== "");
}

/**
 * Mount the notes panel in ``host`` for ``gameId``; ``source`` is the element whose
 * ``data-version`` says which version (move) the board shows.
 */
export function mountNotes(host, gameId, source, seated = () => true) {
  const saved = new Map(); // version (0: the game) → the text the server has
  const drafts = new Map(); // version → text edited and not saved yet
  let shown = null; // the version whose note the move editor shows
  let parts = null;

  function versionShown() {
    const v = Number(source.dataset.version || 0);
    return Number.isInteger(v) && v > 0 ? v : null;
  }

  function path(version) {
    return `/games/${gameId}/notes/${version === 0 ? "game" : version}`;
  }

  function state(version, words, kind = "") {
    const box = version === 0 ? parts.gameState : parts.moveState;
    box.textContent = words;
    box.className = `note-state ${kind}`.trim();
  }

  function settle(version) {
    const text = drafts.has(version) ? drafts.get(version) : saved.get(version) || "";
    const same = text === (saved.get(version) || "");
    if (same && saved.has(version)) state(version, _("Saved"), "saved");
    else if (same) state(version, _("No note yet"));
    else state(version, _("Not saved"), "unsaved");
  }

  async function save(version) {
    const area = version === 0 ? parts.gameText : parts.moveText;
    const text = area.value;
    state(version, _("Saving…"));
    const r = text.trim() ? await api("PUT", path(version), { text }) : await api("DELETE", path(version));
    if (!r.ok && !(r.status === 404 && !text.trim())) {
      state(version, _("Not saved: {problem}", { problem: problemText(r.data) }), "error");
      return;
    }
    if (text.trim()) saved.set(version, r.data.text);
    else saved.delete(version);
    drafts.delete(version);
    if (area.value !== text) drafts.set(version, area.value); // typed on while it was saving
    settle(version);
  }

  function editor(version, id, label) {
    const area = el("textarea", { id, rows: "4", maxlength: String(MAX_TEXT), "aria-describedby": `${id}-state` });
    area.addEventListener("input", () => {
      const key = version === 0 ? 0 : shown;
      drafts.set(key, area.value);
      settle(key);
    });
    const title = el("label", { for: id, id: `${id}-label` }, label);
    const status = el("span", { id: `${id}-state`, class: "note-state", role: "status", "aria-live": "polite" });
    const button = el("button", { type: "button", id: `save-${id}`, onclick: () => save(version === 0 ? 0 : shown) }, _("Save"));
    return { area, title, status, button };
  }

  function build() {
    const game = editor(0, "note-game", _("On the game"));
    const move = editor(null, "note-move", _("On this move"));
    parts = { gameText: game.area, gameState: game.status, moveText: move.area, moveState: move.status, moveTitle: move.title };
    host.replaceChildren(
      el("h3", {}, _("My notes")),
      el("p", { class: "muted" }, pieces(_("Private: only you see them ({rule}). Save an empty note to delete it."), { rule: el("a", { href: "/docs/notes#N1" }, "N1") })),
      el("div", { class: "note" }, game.title, game.area, el("div", { class: "row" }, game.button, game.status)),
      el("div", { class: "note" }, move.title, move.area, el("div", { class: "row" }, move.button, move.status)),
    );
    host.hidden = false;
  }

  function follow() {
    const version = versionShown();
    if (!parts || version === null || version === shown) return;
    // a new move arriving while the player types keeps the note being typed in sight:
    // the editor follows the board once it loses the focus
    if (document.activeElement === parts.moveText && shown !== null) return;
    shown = version;
    parts.moveTitle.textContent = _("On the move shown (version {version})", { version });
    parts.moveText.value = drafts.has(version) ? drafts.get(version) : saved.get(version) || "";
    settle(version);
  }

  async function start() {
    if (!seated()) {
      host.hidden = true; // a spectator keeps no notes (N1): nothing to ask the server
      return;
    }
    const r = await api("GET", `/games/${gameId}/notes`);
    if (!r.ok) {
      host.replaceChildren(); // not signed in, or not seated (N1): no panel
      host.hidden = true;
      return;
    }
    for (const note of r.data.notes) saved.set(note.version === null ? 0 : note.version, note.text);
    build();
    parts.gameText.value = saved.get(0) || "";
    settle(0);
    follow();
    parts.moveText.addEventListener("blur", follow);
    new MutationObserver(follow).observe(source, { attributes: true, attributeFilter: ["data-version"] });
  }

  start();
  return { follow };
}
