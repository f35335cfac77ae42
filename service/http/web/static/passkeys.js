// Passkeys in the browser (WebAuthn): the server's options in, the authenticator's
// answer out as JSON (docs/accounts.md). Chromium and Firefox parse and write the JSON
// forms themselves; the fallbacks convert the few binary fields by hand.

import { api, signIn } from "./api.js";
import { _ } from "./i18n.js";

const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=")), (c) => c.charCodeAt(0));
const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export const supported = () => Boolean(window.PublicKeyCredential && navigator.credentials);

function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  return {
    ...json,
    challenge: bytes(json.challenge),
    user: { ...json.user, id: bytes(json.user.id) },
    excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: bytes(c.id) })),
  };
}

function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  return { ...json, challenge: bytes(json.challenge), allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: bytes(c.id) })) };
}

const RESPONSE = ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle", "publicKey", "publicKeyAlgorithm", "transports"];

/** The credential as the API takes it: the members it documents, nothing else. */
export function answer(credential) {
  let json = credential.toJSON ? credential.toJSON() : null;
  if (!json) {
    const r = credential.response;
    const response = { clientDataJSON: text(r.clientDataJSON) };
    if (r.attestationObject) response.attestationObject = text(r.attestationObject);
    if (r.authenticatorData) response.authenticatorData = text(r.authenticatorData);
    if (r.signature) response.signature = text(r.signature);
    if (r.userHandle) response.userHandle = text(r.userHandle);
    json = { id: credential.id, rawId: text(credential.rawId), type: credential.type, response, authenticatorAttachment: credential.authenticatorAttachment };
  }
  const response = Object.fromEntries(RESPONSE.filter((k) => json.response[k] !== undefined).map((k) => [k, json.response[k]]));
  const sent = { id: json.id, rawId: json.rawId, type: json.type, response };
  if (json.authenticatorAttachment) sent.authenticatorAttachment = json.authenticatorAttachment;
  return sent;
}

/** Why the browser gave no answer, in a person's words. */
function refusal(error) {
  if (error?.name === "NotAllowedError") return { ok: false, status: 0, data: { detail: _("No passkey was chosen (or the prompt was closed).") } };
  if (error?.name === "SecurityError") return { ok: false, status: 0, data: { detail: _("Passkeys need this site opened by its name (http://localhost:…, not an IP address) or over HTTPS.") } };
  if (error?.name === "InvalidStateError") return { ok: false, status: 0, data: { detail: _("This device already holds a passkey of this account.") } };
  return { ok: false, status: 0, data: { detail: _("The browser refused: {reason}", { reason: error?.message || error }) } };
}

/** Sign in with any passkey of this site; resolves like ``api``. */
export async function signInWithPasskey() {
  const options = await api("POST", "/sign-in/passkey/options");
  if (!options.ok) return options;
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: requestOptions(options.data.options) });
  } catch (error) {
    return refusal(error);
  }
  const r = await api("POST", "/sign-in/passkey", { credential: answer(credential) });
  if (r.ok) signIn(r.data);
  return r;
}

/** Add a passkey to the signed-in account; resolves like ``api``. */
export async function addPasskey(name) {
  const options = await api("POST", "/me/passkeys/options");
  if (!options.ok) return options;
  let credential;
  try {
    credential = await navigator.credentials.create({ publicKey: creationOptions(options.data.options) });
  } catch (error) {
    return refusal(error);
  }
  return api("POST", "/me/passkeys", { credential: answer(credential), name });
}
