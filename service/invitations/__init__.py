"""Private tables and invitations (docs/invitations.md, I1–I8)."""
