"""Schemas of leagues (service/http/api/leagues.py; docs/leagues.md L1–L10). A league's
game options are loaded by the very schema that opening a game uses (``GameCreate``,
less the table size, which is the league's, and the testing tile order): any option
added to games is a league's option too, validated the same way."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.api.schemas.base import PRINTABLE, Strict, shown, strict_boolean
from service.http.api.schemas.games import GameCreate

LEAGUE_OPTIONS = ("max_players", "tile_order")  # the league's own, or testing only


class LeagueGameOptions(GameCreate):
    """A league's game options: those of ``POST /games`` but the league's own (a name of
    its own in the OpenAPI document)."""

    class Meta:
        exclude = LEAGUE_OPTIONS


class LeagueCreate(Strict):
    openapi_patterns = {"name": "shown"}  # checked by ``shown`` (service.play.text)
    name = fields.String(
        required=True,
        validate=[validate.Length(1, 80), PRINTABLE, shown],
        metadata={"description": "L1: 1 to 80 printable characters"},
    )
    table_size = fields.Integer(
        required=True,
        validate=validate.Range(2, 6),
        strict=True,
        metadata={"description": "L1: players at each table, 2 to 6"},
    )
    options = fields.Nested(
        LeagueGameOptions,
        load_default=dict,
        metadata={"description": "L1: the games' options, as POST /games takes them"},
    )
    players = fields.List(
        fields.String(
            validate=[
                validate.Length(1, 64),
                # no NUL: PostgreSQL stores no such text (a name never has one)
                validate.Regexp(r"^[^\x00]*$", error="an account id or a name has no NUL"),
            ]
        ),
        load_default=list,
        validate=validate.Length(0, 200),  # bounded; past 29 the rules say why (L2)
        metadata={
            "description": "L2: account ids or exact player names (not you: you play); at"
            " most 29 (a league has 30 players: more is 409 too_many_players)"
        },
    )
    link = strict_boolean(
        load_default=False,
        metadata={"description": "L3: a join link, for players to join until it starts"},
    )


class LeagueJoin(Strict):
    token = fields.String(
        required=True,
        validate=validate.Length(1, 64),
        metadata={"description": "L3: the join link's token"},
    )


class LeagueSummary(Strict):
    league_id = fields.String(required=True)
    name = fields.String(required=True)
    creator = fields.String(required=True)
    creator_name = fields.String(allow_none=True)
    table_size = fields.Integer(required=True)
    status = fields.String(
        required=True,
        metadata={
            "description": "open, started, finished (L12: its last round over) or"
            " cancelled (L11: its creator's account deleted before it started)"
        },
    )
    rounds = fields.Integer(required=True, metadata={"description": "0 until it starts"})
    current_round = fields.Integer(
        required=True, metadata={"description": "L7: the last round opened (0: none)"}
    )
    created_at = fields.String(required=True)


class LeagueList(Strict):
    leagues = fields.List(fields.Nested(LeagueSummary), required=True)
    has_more = fields.Boolean(required=True)


class LeaguePlayer(Strict):
    account_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)


class LeagueTableView(Strict):
    table = fields.Integer(required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "seat order"})
    absent = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "L11: players it opened without, their accounts deleted"},
    )
    game_id = fields.String(allow_none=True, required=True, metadata={"description": "once open"})
    status = fields.String(
        required=True,
        metadata={
            "description": "scheduled, opening, open, setup, playing, ended or not_played"
            " (L11: fewer than 2 of its players left)"
        },
    )


class LeagueRound(Strict):
    round = fields.Integer(required=True)
    tables = fields.List(fields.Nested(LeagueTableView), required=True)


class LeagueStanding(Strict):
    place = fields.Integer(required=True)
    account_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True)
    games = fields.Integer(required=True, metadata={"description": "games over, not annulled"})
    wins = fields.Integer(required=True)
    rank_points = fields.Float(required=True, metadata={"description": "L9: players - place"})
    game_points = fields.Integer(required=True, metadata={"description": "L9: the tie-break"})


class LeagueView(LeagueSummary):
    options = fields.Dict(required=True, metadata={"description": "the games' options"})
    players = fields.List(fields.Nested(LeaguePlayer), required=True)
    link = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "L3: the join link's path (its creator's, while open)"},
    )
    schedule = fields.List(fields.Nested(LeagueRound), required=True)
    standings = fields.List(fields.Nested(LeagueStanding), required=True)
