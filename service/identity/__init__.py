"""Accounts people can keep (docs/accounts.md): sessions for pages, tokens for programs,
sign-in by e-mail link and by passkey, and what revokes them."""
