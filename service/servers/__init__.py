"""Servers: the embedded HTTP server, gunicorn with gevent, and how the app is run on each."""
