"""Analysis forks (docs/forks.md): a sandbox of its own from any version of any game."""
