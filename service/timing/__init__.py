"""Time: turn clocks (docs/clocks.md), the service's time recorded with the events."""
