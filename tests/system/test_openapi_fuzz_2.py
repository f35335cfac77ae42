"""The OpenAPI document against a real server, shard 2 of 3 (tests/system/openapi_fuzzing.py)."""

from __future__ import annotations

import pytest

from tests.system.openapi_fuzzing import HANG_GUARD, run


@pytest.mark.timeout(HANG_GUARD)
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_every_answer_keeps_to_the_openapi_document(backend, request, tmp_path):
    run(backend, 2, request, tmp_path)
