"""rq job functions and the worker entry point that keep the read models up to date."""
