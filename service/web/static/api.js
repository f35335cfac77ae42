// The JSON API, the signed-in account (kept in this browser) and small helpers.

const KEY = "tongiaki.account";

export function me() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || null;
  } catch {
    return null;
  }
}

export function signIn(account) {
  localStorage.setItem(KEY, JSON.stringify(account));
}

export function signOut() {
  localStorage.removeItem(KEY);
}

/** Call /api/v1; resolves to {ok, status, data}; problems carry code, detail, rule. */
export async function api(method, path, body, headers = {}) {
  const h = { Accept: "application/json", ...headers };
  const account = me();
  if (account) h.Authorization = `Bearer ${account.token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, data: { code: "offline", detail: String(error) } };
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

/** A problem as one line: "Rejected (R13): detail". */
export function problemText(data) {
  if (!data) return "Something went wrong";
  const rule = data.rule ? ` (${data.rule})` : "";
  return `${data.title || "Rejected"}${rule}: ${data.detail || data.code}`;
}

export function toast(text, kind = "info") {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.className = `show ${kind}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.className = ""), kind === "error" ? 8000 : 3000);
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function nav(gameId) {
  const links = [el("a", { href: "/" }, "Lobby")];
  if (gameId) {
    links.push(
      el("a", { href: `/games/${gameId}` }, "Game"),
      el("a", { href: `/games/${gameId}/replay` }, "Replay"),
      el("a", { href: `/games/${gameId}/audit` }, "Audit"),
    );
  }
  document.getElementById("nav").replaceChildren(...links);
  const account = me();
  document.getElementById("me").textContent = account ? `Signed in as ${account.name}` : "";
}

export const COLOURS = ["blue", "red", "green", "yellow", "orange", "purple"];
export const LETTER = { blue: "B", red: "R", green: "G", yellow: "Y", orange: "O", purple: "P" };
export const BY_LETTER = { b: "blue", r: "red", g: "green", y: "yellow", o: "orange", p: "purple" };

export function cap(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

/** A random command id (crypto.randomUUID exists only on https and localhost). */
export function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
