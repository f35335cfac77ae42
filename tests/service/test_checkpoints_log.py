"""C2SP tlog-checkpoint (issue 28): a checkpoint's text, and what is not one."""

from __future__ import annotations

import pytest

from service.transparency.checkpoint import Checkpoint, CheckpointError
from service.transparency.merkle import EMPTY


def test_a_checkpoint_is_written_and_read_back():
    point = Checkpoint("tongiaki.example/log", 12, EMPTY, ("extra line",))
    assert point.text == (
        "tongiaki.example/log\n12\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\nextra line\n"
    )
    assert Checkpoint.parse(point.text) == point
    assert Checkpoint.parse("o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n").size == 0


@pytest.mark.parametrize(
    "text",
    [
        "o\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",  # no final newline
        "o\n1\n",
        "\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",  # no origin
        "o\n01\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",  # a leading zero
        "o\n-1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
        "o\n99999999999999999999\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
        "o\n1\nnot base64!\n",
        "o\n1\nAAAA\n",  # not 32 bytes
        "o\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n\n",  # an empty line
        "o\tx\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
    ],
)
def test_what_is_not_a_checkpoint(text):
    with pytest.raises(CheckpointError):
        Checkpoint.parse(text)
