"""Round-robin leagues (docs/leagues.md, L1–L10)."""
