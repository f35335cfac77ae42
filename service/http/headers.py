"""The security headers every answer of the service carries.

Pages (``service.http.web``) load only their own scripts, styles and API: no inline
code, no framing. Every other answer (JSON, the API's reference page, health,
metrics) gets a policy that allows nothing at all, so a response opened in a
browser by mistake can neither run nor be framed.
"""

from __future__ import annotations

from flask import Flask
from flask.wrappers import Response

PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
    " frame-ancestors 'none'"
)
NOTHING_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
COMMON = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def install(app: Flask) -> None:
    """Add the headers to every answer that has not set its own."""

    @app.after_request
    def security_headers(response: Response) -> Response:
        kind = response.mimetype or ""  # none on a 204
        html = kind == "text/html" or kind.startswith(
            ("text/css", "application/javascript", "text/javascript", "image/")
        )
        response.headers.setdefault(
            "Content-Security-Policy", PAGE_POLICY if html else NOTHING_POLICY
        )
        for name, value in COMMON.items():
            response.headers.setdefault(name, value)
        return response
