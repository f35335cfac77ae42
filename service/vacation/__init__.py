"""Vacation (docs/vacation.md, V1–V9): each account's days a year, announced spells and
the automatic vacation its clocks spend, as the service keeps and shows them."""
