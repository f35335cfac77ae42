"""The transparency log (issue 28): RFC 9162 Merkle trees, and in time the log of every
game's and dispute's heads, its checkpoints, tiles and proofs (docs/architecture.md)."""
