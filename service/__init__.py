"""Tongiaki service: composition root, event store, HTTP API, CLI."""
