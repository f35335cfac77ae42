"""Private notes (docs/notes.md, N1–N6): a seated player's own notes on a game and on
its moves, kept beside the read models in the store's database, never in a game's
stream, its verification or the transparency log."""
