"""Players' profiles (docs/profiles.md): the page of an account (P1, P2), its display
name changed (P3–P5), the account deleted by itself (P6–P9), and the games waiting
for its move (Q1–Q3)."""
