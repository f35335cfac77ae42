"""Flask's JSON through orjson: responses and request bodies.

The HTTP benchmark spent about a tenth of the workers' CPU in the standard
library's encoder (``/legal`` lists and accepted commands' events). orjson
writes the same compact JSON several times faster (non-ASCII text as UTF-8
rather than backslash-u escapes: the same values). Whatever it would write
differently from Flask's provider (dates, dataclasses) or cannot write (an
integer beyond 64 bits) goes to Flask's own provider, so no value turns into a
500 that the standard provider would have written.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response as BaseResponse

_OPTIONS = (
    orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
)


def _refuse(obj: Any) -> Any:
    raise TypeError(type(obj).__name__)  # handled by the standard provider


class OrjsonProvider(DefaultJSONProvider):
    """``DefaultJSONProvider`` with orjson for the common case (keys kept in order)."""

    sort_keys = False

    def _fast(self, obj: Any) -> bytes | None:
        try:
            return orjson.dumps(obj, default=_refuse, option=_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            return None

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs:
            fast = self._fast(obj)
            if fast is not None:
                return fast.decode()
        return super().dumps(obj, **kwargs)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if not kwargs:
            try:
                return orjson.loads(s)
            except orjson.JSONDecodeError:
                pass  # the standard library decides (and words the error)
        return super().loads(s, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> BaseResponse:
        if self.compact is False or (self.compact is None and self._app.debug):
            return super().response(*args, **kwargs)  # indented for people
        obj = self._prepare_response_obj(args, kwargs)
        fast = self._fast(obj)
        if fast is None:
            return super().response(obj)
        response_class: Any = self._app.response_class  # flask.Response in a Flask app
        return response_class(fast + b"\n", mimetype=self.mimetype)  # type: ignore[no-any-return]
