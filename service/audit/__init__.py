"""Audit: verification of a game's record, disputes, export and import."""
