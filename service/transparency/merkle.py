"""The Merkle tree of RFC 9162 (section 2.1), SHA-256: hashes, inclusion and consistency
proofs, made and checked.

A leaf's hash is H(0x00 ‖ entry) and a node's H(0x01 ‖ left ‖ right); the tree of n
leaves splits at the largest power of two below n. Everything here is a function of
hashes already computed (the leaves' hashes in order), so the log can keep them in
tiles and anyone can check a proof with nothing but this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

HASH_SIZE = 32
EMPTY = hashlib.sha256(b"").digest()  # the root of the empty tree


class ProofError(ValueError):
    """A proof that does not prove what it claims (or that cannot be a proof at all)."""


def leaf_hash(entry: bytes) -> bytes:
    """H(0x00 ‖ entry)."""
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """H(0x01 ‖ left ‖ right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1): where RFC 9162 splits a tree."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH of the leaves' hashes (EMPTY for none)."""
    if not leaves:
        return EMPTY
    level = list(leaves)
    while len(level) > 1:  # pairs from the left; an odd last node rises as it is
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = paired + ([level[-1]] if len(level) % 2 else [])
    return level[0]


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PATH(index, D[n]): the hashes that lead leaf ``index`` to the root of ``leaves``."""
    if not 0 <= index < len(leaves):
        raise ProofError(f"leaf {index} is not in a tree of {len(leaves)}")
    return _path(index, leaves)


def _path(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    if len(leaves) == 1:
        return []
    k = split(len(leaves))
    if index < k:
        return [*_path(index, leaves[:k]), root(leaves[k:])]
    return [*_path(index - k, leaves[k:]), root(leaves[:k])]


def consistency_proof(old: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PROOF(old, D[n]): the hashes that show the tree of the first ``old`` leaves is a
    prefix of the tree of ``leaves`` (empty when old is 0 or n)."""
    if not 0 <= old <= len(leaves):
        raise ProofError(f"a tree of {old} cannot precede a tree of {len(leaves)}")
    if old in (0, len(leaves)):
        return []
    return _subproof(old, leaves, True)


def _subproof(m: int, leaves: Sequence[bytes], whole: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if whole else [root(leaves)]
    k = split(n)
    if m <= k:
        return [*_subproof(m, leaves[:k], whole), root(leaves[k:])]
    return [*_subproof(m - k, leaves[k:], False), root(leaves[:k])]


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], top: bytes
) -> None:
    """RFC 9162 2.1.3.2: raise ``ProofError`` unless ``leaf`` is at ``index`` of the tree of
    ``size`` whose root is ``top``."""
    if not 0 <= index < size:
        raise ProofError(f"index {index} is not in a tree of {size}")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ProofError("the inclusion proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion proof is shorter than the tree is deep")
    if r != top:
        raise ProofError("the inclusion proof leads to another root")


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> None:
    """RFC 9162 2.1.4.2: raise ``ProofError`` unless the tree of ``old`` leaves with root
    ``old_root`` is a prefix of the tree of ``new`` leaves with root ``new_root``."""
    if not 0 <= old <= new:
        raise ProofError(f"a tree of {old} cannot precede a tree of {new}")
    if old == new:
        if proof:
            raise ProofError("two trees of one size need an empty proof")
        if old_root != new_root:
            raise ProofError("two trees of one size have two roots")
        return
    if old == 0:
        if proof:
            raise ProofError("the empty tree needs an empty proof")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old root is the path's start
        path.insert(0, old_root)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is longer than the trees are deep")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof is shorter than the trees are deep")
    if fr != old_root:
        raise ProofError("the consistency proof does not lead to the old root")
    if sr != new_root:
        raise ProofError("the consistency proof does not lead to the new root")
