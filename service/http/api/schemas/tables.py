"""Schemas of private tables, invitations and rematches (service/http/api/invitations.py
and rematch.py; docs/invitations.md I1–I8, RM1–RM9)."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.api.schemas.base import PRINTABLE, Strict, shown, strict_boolean
from service.http.api.schemas.games import GameCreate

ENTROPY = fields.String(
    load_default="",
    validate=[validate.Length(0, 256), PRINTABLE, shown],
    metadata={"description": "your entropy for the new game's deck, as at a join"},
)


class TableCreate(GameCreate):
    invite = fields.List(
        fields.String(validate=[validate.Length(1, 64), PRINTABLE]),
        load_default=list,
        validate=validate.Length(0, 5),
        metadata={
            "description": "I2: account ids or exact player names, at most seats - 1"
            " (you are not one of them)"
        },
    )
    link = strict_boolean(
        load_default=False,
        metadata={"description": "I3: make an invitation link (an unguessable token)"},
    )


class InvitationView(Strict):
    account_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    status = fields.String(required=True, metadata={"description": "invited or declined"})
    invited_at = fields.String(required=True)
    answered_at = fields.String(allow_none=True, required=True)


class TableView(Strict):
    game_id = fields.String(required=True)
    opener = fields.String(required=True)
    link = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "I3: the invitation link's path (the opener's only)"},
    )
    invitations = fields.List(fields.Nested(InvitationView), required=True)


class TableOpened(TableView):
    version = fields.Integer(required=True)


class MyInvitation(Strict):
    game_id = fields.String(required=True)
    opener = fields.String(allow_none=True, required=True)
    opener_name = fields.String(allow_none=True, required=True)
    invited_at = fields.String(required=True)
    seats = fields.Integer(required=True, metadata={"description": "seats taken"})
    max_players = fields.Integer(required=True)
    two_colours_each = fields.Boolean(required=True)
    taken = fields.List(fields.String(), required=True, metadata={"description": "colours"})


class MyInvitations(Strict):
    invitations = fields.List(fields.Nested(MyInvitation), required=True)


class RematchAnswer(Strict):
    openapi_patterns = {"entropy": "shown"}

    entropy = ENTROPY


class RematchPlayer(Strict):
    player_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    level = fields.String(metadata={"description": "a bot's seat: its level (docs/bots.md, B4)"})
    colours = fields.List(fields.String(), required=True)
    new_seat = fields.Integer(required=True, metadata={"description": "RM4: seats rotated"})
    answer = fields.String(
        required=True,
        metadata={
            "description": "accepted, declined, waiting; bot: a bot's seat, seated again (B4)"
        },
    )


class RematchProposal(Strict):
    round = fields.Integer(required=True, metadata={"description": "a new one after a decline"})
    status = fields.String(
        required=True, metadata={"description": "open, declined, accepted or opened"}
    )
    proposer = fields.String(required=True)
    proposed_at = fields.String(required=True)
    next_game_id = fields.String(
        allow_none=True, required=True, metadata={"description": "RM7: the rematch's game"}
    )
    players = fields.List(fields.Nested(RematchPlayer), required=True)


class RematchView(Strict):
    game_id = fields.String(required=True)
    previous_game_id = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "RM7: the game this one is a rematch of"},
    )
    proposal = fields.Nested(RematchProposal, allow_none=True, required=True)
