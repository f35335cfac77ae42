// A mailed sign-in link (/sign-in/link#secret): the secret is read from the fragment
// (never sent to the server in a URL), removed from the address bar, and used once.

import { api, el, nav, problemText, signIn, withNodes } from "./api.js";
import { _ } from "./i18n.js";

async function use() {
  const token = location.hash.slice(1);
  history.replaceState(null, "", location.pathname);
  nav();
  const main = document.getElementById("main");
  const heading = () => el("h1", {}, _("Signing in"));
  if (!token) {
    main.replaceChildren(heading(), el("p", {}, withNodes(_("This link is incomplete. Ask for a new one in {lobby}."), { lobby: el("a", { href: "/" }, _("the lobby")) })));
    return;
  }
  main.replaceChildren(heading(), el("p", {}, _("Signing in…")));
  const r = await api("POST", "/sign-in/link", { token });
  if (!r.ok) {
    main.replaceChildren(heading(), el("p", { class: "warning", id: "link-refused" }, problemText(r.data), " ", el("a", { href: "/" }, _("Back to the lobby")), "."));
    return;
  }
  signIn(r.data);
  nav();
  const added = r.data.purpose === "add_email";
  main.replaceChildren(heading(), el("p", { id: "link-done" }, added ? _("The address {email} signs you in from now on.", { email: r.data.email }) : _("Signed in as {name}.", { name: r.data.name }), " ", el("a", { href: added ? "/account" : "/" }, added ? _("Your account") : _("To the lobby")), "."));
}

use();
