"""What an account chose for itself beyond its notifications: its language (docs/i18n.md)."""
