"""D8 under races: a ruling judged on a dispute another ruling has just closed is judged
again and refused as closed (dispute_closed), whatever its check of the game found."""

from __future__ import annotations

from tests.service.api import open_game
from tests.service.test_disputes import Auditor, dispute, moves


def test_d8_a_rewind_judged_on_a_dispute_ruled_meanwhile_is_refused_as_closed(
    client, app, monkeypatch
):
    game_id, players = open_game(client, ["blue", "red"])
    receipts = moves(client, game_id, players, 12, seed=1)
    d = dispute(players[0], game_id, receipts[-1], reason="misclick").json["dispute_id"]
    auditor = Auditor(client, app)
    service = app.extensions["tongiaki.disputes"]
    stale = service.visible
    open_then = {"loaded": None}

    def seen_before_the_winner(who, dispute_id):
        # the loser read the dispute open, then the winner's rewind committed: the
        # loser's target (after the winner's) is superseded, but what it says is closed
        if open_then["loaded"] is None:
            open_then["loaded"] = stale(who, dispute_id)
            monkeypatch.setattr(service, "visible", stale)
            ruling = {"decision": "rewind", "reasoning": "a", "rules": ["D6"]}
            won = auditor.post(f"/disputes/{d}/ruling", {**ruling, "to_version": receipts[-3]})
            assert won.status_code == 200, won.json
            monkeypatch.setattr(service, "visible", seen_before_the_winner)
            return open_then["loaded"]
        return stale(who, dispute_id)

    monkeypatch.setattr(service, "visible", seen_before_the_winner)
    body = {"decision": "rewind", "reasoning": "b", "rules": ["D6"], "to_version": receipts[-2]}
    lost = auditor.post(f"/disputes/{d}/ruling", body)
    assert lost.status_code == 409 and lost.json["code"] == "dispute_closed", lost.json
    events = client.get(f"/api/v1/games/{game_id}/events?after={receipts[-1]}").json["events"]
    rewinds = [e["data"]["to_version"] for e in events if e["type"] == "GameRewound"]
    assert rewinds == [receipts[-3]]
