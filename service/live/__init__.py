"""Live: what follows a commit - doorbells for the read models, the change feed, live streams."""
