"""TGN, the Tongiaki game notation (docs/notation.md): one line a decision, readable by
a person, with tags, comments and variations; written from a recorded game and read
back into its very events.

- ``text``: the text itself (tags, numbered lines, draws, comments, variations), with
  errors that name the line and column;
- ``phrases``: a decision in words and back, against the position it was said in;
- ``game``: ``export`` (a game's commands and events → text) and ``load`` (text →
  events, through the rules).
"""

from domain.notation.game import Loaded, Unwritable, export, load
from domain.notation.text import NotationError, parse, write

__all__ = ["Loaded", "NotationError", "Unwritable", "export", "load", "parse", "write"]
