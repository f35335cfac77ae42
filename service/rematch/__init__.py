"""Rematches: a finished game's players open the same table again (docs/invitations.md,
RM1–RM9)."""
