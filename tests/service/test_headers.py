"""Every answer carries the security headers (service.http.headers), a bodiless one too."""

from __future__ import annotations

from flask import Flask, Response

from service.http.headers import NOTHING_POLICY, PAGE_POLICY, install


def test_each_kind_of_answer_gets_its_policy():
    app = Flask(__name__)
    install(app)

    def empty() -> Response:
        answer = Response(status=204)
        del answer.headers["Content-Type"]  # as the stream's 204: no type at all
        return answer

    app.add_url_rule("/empty", "empty", empty)
    app.add_url_rule("/page", "page", lambda: Response("<p>", mimetype="text/html"))
    app.add_url_rule("/json", "json", lambda: {"a": 1})
    client = app.test_client()
    assert client.get("/empty").headers["Content-Security-Policy"] == NOTHING_POLICY
    assert client.get("/page").headers["Content-Security-Policy"] == PAGE_POLICY
    answer = client.get("/json")
    assert answer.headers["Content-Security-Policy"] == NOTHING_POLICY
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "same-origin"
