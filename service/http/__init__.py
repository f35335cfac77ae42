"""HTTP: the API blueprints, the web pages, problem types, health, metrics, rate limits, headers."""
