"""Playing a game: commands in, events out (the application service, the repository it
loads games from, receipts and idempotency, admission, seat timeouts), accounts, text."""
