"""PostgreSQL replication as the service uses it (docs/replication.md): the read side on
a standby (``reads``)."""
