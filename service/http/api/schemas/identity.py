"""Schemas of signing in and of an account's credentials (service/http/api/signin.py,
service/http/api/credentials.py): sessions, tokens, e-mail links, passkeys."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.api.schemas.base import PRINTABLE, Strict
from service.play.text import EMAIL_PATTERN

SECRET = r"^[A-Za-z0-9_-]{20,100}$"


class EmailAsked(Strict):
    email = fields.String(
        required=True,
        validate=validate.Length(3, 254),
        metadata={
            "pattern": EMAIL_PATTERN,
            "description": "the address (compared in lower case; 422 bad_email otherwise)",
        },
    )


class SignInWays(Strict):
    email = fields.Boolean(required=True, metadata={"description": "sign-in by mailed link"})
    passkey = fields.Boolean(required=True)
    token = fields.Boolean(required=True)


class Asked(Strict):
    detail = fields.String(required=True, metadata={"description": "what happens now"})


class LinkUsed(Strict):
    token = fields.String(
        required=True,
        validate=validate.Regexp(SECRET),
        metadata={"description": "the secret after # in the mailed link"},
    )


class SignedIn(Strict):
    account_id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"description": "player or auditor"})
    csrf_token = fields.String(
        required=True, metadata={"description": "send as X-CSRF-Token with the page's writes"}
    )
    purpose = fields.String(
        metadata={"description": "a link's: sign_in, or add_email (then the address added)"}
    )
    email = fields.String(allow_none=True)


BASE64URL = validate.Regexp(r"^[A-Za-z0-9_-]*$")


def _encoded(description: str, required: bool = False, longest: int = 8192) -> fields.String:
    return fields.String(
        required=required,
        validate=[validate.Length(0, longest), BASE64URL],
        metadata={"description": f"{description} (base64url, no padding)"},
    )


class PasskeyResponse(Strict):
    """The authenticator's response, as ``PublicKeyCredential.toJSON()`` writes it."""

    clientDataJSON = _encoded(
        "the client data: JSON naming the challenge, the origin and the ceremony"
        " (422 bad_passkey_answer when it names no challenge)",
        required=True,
    )
    attestationObject = _encoded("registration: the attestation object")
    authenticatorData = _encoded("the authenticator data")
    signature = _encoded("sign-in: the assertion's signature")
    userHandle = fields.String(
        allow_none=True,
        validate=[validate.Length(0, 256), BASE64URL],
        metadata={"description": "sign-in: the account's user handle (base64url)"},
    )
    publicKey = _encoded("registration: the public key (SPKI)")
    publicKeyAlgorithm = fields.Integer(
        validate=validate.Range(-(2**31), 2**31 - 1),
        metadata={"description": "registration: the key's COSE algorithm"},
    )
    transports = fields.List(
        fields.String(validate=validate.Length(1, 32)),
        validate=validate.Length(0, 8),
        metadata={"description": "registration: how the authenticator is reached"},
    )


class PasskeyCredential(Strict):
    """A ``PublicKeyCredential`` as JSON (its members the pages send)."""

    id = _encoded("the credential's id", required=True, longest=1024)
    rawId = _encoded("the credential's id", required=True, longest=1024)
    type = fields.String(required=True, validate=validate.OneOf(["public-key"]))
    response = fields.Nested(PasskeyResponse, required=True)
    authenticatorAttachment = fields.String(
        allow_none=True, validate=validate.OneOf(["platform", "cross-platform"])
    )
    clientExtensionResults = fields.Dict(
        keys=fields.String(),
        validate=validate.Length(0, 16),
        metadata={"description": "the browser's extension results (none are asked: ignored)"},
    )


class PasskeyAnswer(Strict):
    credential = fields.Nested(
        PasskeyCredential,
        required=True,
        metadata={
            "description": "the authenticator's answer to the options' challenge, as the"
            " browser's PublicKeyCredential.toJSON() writes it"
        },
    )
    name = fields.String(
        load_default="",
        validate=[validate.Length(0, 64), PRINTABLE],
        metadata={"description": "what the account's page calls a new passkey"},
    )


class PasskeyOptions(Strict):
    options = fields.Dict(
        required=True,
        metadata={"description": "publicKey options for navigator.credentials (JSON form)"},
    )


class TokenAsked(Strict):
    name = fields.String(
        required=True,
        validate=[validate.Length(1, 64), PRINTABLE],
        metadata={"description": "what the token is for (a bot's name)"},
    )


class Credential(Strict):
    credential_id = fields.String(required=True)
    kind = fields.String(required=True, metadata={"description": "session or token"})
    label = fields.String(required=True, metadata={"description": "the browser, or the name"})
    method = fields.String(
        required=True, metadata={"description": "sign-up, token, email, passkey or created"}
    )
    created_at = fields.String(required=True)
    last_used_at = fields.String(required=True)
    current = fields.Boolean(required=True, metadata={"description": "this very request's"})


class TokenMade(Credential):
    token = fields.String(required=True, metadata={"description": "shown once; send as Bearer"})


class Passkey(Strict):
    passkey_id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.String(required=True)
    last_used_at = fields.String(allow_none=True)


class Credentials(Strict):
    credentials = fields.List(fields.Nested(Credential), required=True)
    passkeys = fields.List(fields.Nested(Passkey), required=True)
    email = fields.String(allow_none=True, required=True)
    recoverable = fields.Boolean(
        required=True,
        metadata={"description": "false: no e-mail and no passkey; losing the token loses it"},
    )
