"""Storage: the event store port (base.py) and its adapters, SQLite, PostgreSQL and in
memory, one small class per port over a shared database (docs/architecture.md)."""
