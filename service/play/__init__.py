"""Playing a game: commands in, events out (the application service), accounts, players' text."""
