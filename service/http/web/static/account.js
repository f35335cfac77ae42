// The account's page (docs/accounts.md): how it signs in (e-mail address, passkeys),
// what it risks without either, its sessions and tokens (each revocable), a new token
// for a program.

import { api, el, me, nav, problemText, signOut, toast } from "./api.js";
import { _, moment } from "./i18n.js";
import { addPasskey, supported } from "./passkeys.js";
import { vacationCard } from "./vacation.js";

const when = (iso) => (iso ? moment(iso, {}) : _("never"));

/** How a session signed in (its ``method``), in words. */
const METHODS = { email: _("email"), passkey: _("passkey"), token: _("token"), created: _("created"), "sign-up": _("sign-up"), operator: _("operator") };

/** A translated message with elements in it: each {field} named in ``parts`` becomes its element or text. */
function withElements(text, parts) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((piece, i) => (i % 2 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece)).filter((piece) => piece !== "");
}

function risk(data) {
  if (data.recoverable) return null;
  return el(
    "p",
    { class: "warning", id: "account-risk" },
    me()?.kind === "auditor"
      ? _("This account has no e-mail address and no passkey. If this browser forgets its sign-in (cleared, lost, replaced) and no token is kept elsewhere, the account is lost until an operator makes you a new one. Add an address or a passkey below.")
      : _("This account has no e-mail address and no passkey. If this browser forgets its sign-in (cleared, lost, replaced) and no token is kept elsewhere, the account and every game it plays are lost. Add an address or a passkey below."),
  );
}

function emailCard(data, mails) {
  if (!mails && !data.email) return el("section", { class: "card", id: "email" }, el("h2", {}, _("E-mail")), el("p", { class: "muted" }, _("This server sends no mail: add a passkey to sign in elsewhere.")));
  const address = el("input", { id: "email-address", type: "email", required: true, autocomplete: "email", placeholder: _("you@example.org"), "aria-label": _("E-mail address") });
  return el(
    "section",
    { class: "card", id: "email" },
    el("h2", {}, _("E-mail")),
    el("p", {}, data.email ? [...withElements(_("Signs in with {address}"), { address: el("b", { id: "email-now" }, data.email) }), " ", el("button", { type: "button", id: "email-remove", onclick: () => remove("/me/email", _("The address signs in no more.")) }, _("Remove"))] : _("No address: add one to sign in by e-mail link.")),
    el(
      "form",
      {
        id: "email-add",
        onsubmit: async (event) => {
          event.preventDefault();
          const r = await api("POST", "/me/email", { email: address.value.trim() });
          if (!r.ok) return toast(problemText(r.data), "error");
          toast(_("A link to confirm the address is on its way: open it in this browser within 15 minutes."));
        },
      },
      address,
      el("button", { type: "submit" }, data.email ? _("Change") : _("Add")),
    ),
  );
}

function passkeysCard(data) {
  const name = el("input", { id: "passkey-name", maxlength: 64, placeholder: _("This phone"), "aria-label": _("Passkey name") });
  return el(
    "section",
    { class: "card", id: "passkeys" },
    el("h2", {}, _("Passkeys")),
    data.passkeys.length
      ? el("ul", { id: "passkey-list" }, ...data.passkeys.map((p) => el("li", { "data-passkey": p.passkey_id }, el("b", {}, p.name), " — ", p.last_used_at ? _("added {added}, last used {used}", { added: when(p.created_at), used: when(p.last_used_at) }) : _("added {added}, last used never", { added: when(p.created_at) }), " ", el("button", { type: "button", "data-action": "remove-passkey", onclick: () => remove(`/me/passkeys/${p.passkey_id}`, _("The passkey signs nobody in from now on.")) }, _("Remove")))))
      : el("p", { class: "muted" }, _("None yet.")),
    supported()
      ? el(
          "form",
          {
            id: "passkey-add",
            onsubmit: async (event) => {
              event.preventDefault();
              const r = await addPasskey(name.value.trim() || "passkey");
              if (!r.ok) return toast(problemText(r.data), "error");
              toast(_("Passkey added."));
              load();
            },
          },
          name,
          el("button", { type: "submit" }, _("Add a passkey")),
        )
      : el("p", { class: "muted" }, _("This browser has no passkeys.")),
  );
}

function credentialsCard(data) {
  const rows = data.credentials.map((c) =>
    el(
      "tr",
      { "data-credential": c.credential_id, "data-kind": c.kind },
      el("td", {}, c.kind === "session" ? _("Browser") : _("Token")),
      el("td", { class: "label" }, c.label, c.current ? el("b", {}, " ", _("(this one)")) : null),
      el("td", {}, METHODS[c.method] || c.method),
      el("td", {}, when(c.created_at)),
      el("td", {}, when(c.last_used_at)),
      el("td", {}, el("button", { type: "button", "data-action": "revoke", onclick: () => revoke(c) }, _("Revoke"))),
    ),
  );
  const label = el("input", { id: "token-name", required: true, maxlength: 64, placeholder: _("My bot"), "aria-label": _("Token name") });
  return el(
    "section",
    { class: "card", id: "credentials" },
    el("h2", {}, _("Sessions and tokens")),
    el("table", {}, el("thead", {}, el("tr", {}, ...[_("Kind"), _("Device or name"), _("Signed in by"), _("Made"), _("Last used"), ""].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, ...rows)),
    el(
      "form",
      {
        id: "token-new",
        onsubmit: async (event) => {
          event.preventDefault();
          const r = await api("POST", "/me/tokens", { name: label.value.trim() });
          if (!r.ok) return toast(problemText(r.data), "error");
          await load();
          document.getElementById("credentials").append(el("p", { id: "token-made" }, withElements(_("The new token, shown this once: {token}"), { token: el("code", {}, r.data.token) })));
        },
      },
      label,
      el("button", { type: "submit" }, _("New token for a program")),
    ),
  );
}

async function remove(path, said) {
  const r = await api("DELETE", path);
  if (!r.ok) return toast(problemText(r.data), "error");
  toast(said);
  load();
}

async function revoke(c) {
  if (c.current && !confirm(_("This is this browser's own session: revoking it signs this browser out. Go on?"))) return;
  const r = await api("DELETE", `/me/credentials/${c.credential_id}`);
  if (!r.ok) return toast(problemText(r.data), "error");
  if (c.current) {
    await signOut(true);
    location.href = "/";
    return;
  }
  toast(c.kind === "session" ? _("That browser is signed out; its live views end.") : _("The token names nobody from now on."));
  load();
}

async function load() {
  nav();
  if (!me()) {
    document.getElementById("main").replaceChildren(el("h1", {}, _("Your account")), el("p", {}, withElements(_("Sign in first: {link}."), { link: el("a", { href: "/" }, _("the lobby")) })));
    return;
  }
  const [r, ways, away] = await Promise.all([api("GET", "/me/credentials"), api("GET", "/sign-in"), api("GET", "/me/vacation")]);
  if (!r.ok) {
    if (r.status === 401) {
      await signOut(true);
      location.href = "/";
      return;
    }
    return toast(problemText(r.data), "error");
  }
  const account = me();
  document.getElementById("main").replaceChildren(
    el("div", { class: "account" }, el("h1", {}, account.name, account.kind === "auditor" ? [" ", _("(auditor)")] : ""), risk(r.data), emailCard(r.data, ways.data?.email !== false), passkeysCard(r.data), credentialsCard(r.data), away.ok ? vacationCard(away.data, load) : null),
  );
}

load();
