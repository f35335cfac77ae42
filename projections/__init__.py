"""Read models (scoreboards, leaderboard, lobby, replay, audit) as folds over events."""
