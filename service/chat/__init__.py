"""A game's chat (docs/chat.md, M1–M9): a stream of its own beside the game's."""
