"""RFC 9162's Merkle tree (issue 28): the roots of Certificate Transparency's reference
vectors, and for every tree size up to 40 every inclusion and consistency proof made
here checked by RFC 9162's own verification algorithms — and refused once altered."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.transparency.merkle import (
    EMPTY,
    ProofError,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

# the reference leaves of certificate-transparency's merkle tree tests, and the roots of
# the trees of their first 1 to 8 leaves
ENTRIES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    b"\x50\x51\x52\x53\x54\x55\x56\x57",
    b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
]
ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
LEAVES = [leaf_hash(e) for e in ENTRIES]


def test_the_reference_roots():
    assert root([]) == EMPTY
    assert EMPTY.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    for size, expected in enumerate(ROOTS, start=1):
        assert root(LEAVES[:size]).hex() == expected, size


def test_hashes_are_domain_separated():
    """A leaf and a node over the same bytes never share a hash (0x00 / 0x01 prefixes)."""
    a, b = LEAVES[1], LEAVES[2]
    assert leaf_hash(a + b) != node_hash(a, b)


def many(n: int) -> list[bytes]:
    return [leaf_hash(f"tongiaki-head/v1\ngame/g\n{i}\n".encode()) for i in range(n)]


def test_every_inclusion_proof_up_to_40_leaves_checks_and_an_altered_one_does_not():
    leaves = many(40)
    for size in range(1, 41):
        top = root(leaves[:size])
        for index in range(size):
            proof = inclusion_proof(index, leaves[:size])
            verify_inclusion(index, size, leaves[index], proof, top)
            with pytest.raises(ProofError):  # another leaf at that place
                verify_inclusion(index, size, leaves[(index + 1) % 40], proof, top)
            if proof:
                bent = [bytes(32), *proof[1:]]
                with pytest.raises(ProofError):
                    verify_inclusion(index, size, leaves[index], bent, top)
                with pytest.raises(ProofError):  # a step missing
                    verify_inclusion(index, size, leaves[index], proof[:-1], top)
            with pytest.raises(ProofError):  # a step too many
                verify_inclusion(index, size, leaves[index], [*proof, bytes(32)], top)


def test_every_consistency_proof_up_to_40_leaves_checks_and_a_forked_tree_fails():
    leaves = many(40)
    for new in range(1, 41):
        new_root = root(leaves[:new])
        for old in range(1, new + 1):
            proof = consistency_proof(old, leaves[:new])
            verify_consistency(old, new, root(leaves[:old]), new_root, proof)
            if old == new:
                continue
            # a history rewritten in the old part: its root cannot be reached
            forked = list(leaves[:new])
            forked[old - 1] = leaf_hash(b"rewritten")
            with pytest.raises(ProofError):
                verify_consistency(old, new, root(leaves[:old]), root(forked), proof)
            with pytest.raises(ProofError):
                verify_consistency(old, new, root(forked[:old]), new_root, proof)
            with pytest.raises(ProofError):  # no proof at all
                verify_consistency(old, new, root(leaves[:old]), new_root, [])


def test_impossible_sizes_are_refused():
    leaves = many(4)
    with pytest.raises(ProofError):
        inclusion_proof(4, leaves)
    with pytest.raises(ProofError):
        consistency_proof(5, leaves)
    with pytest.raises(ProofError):
        verify_inclusion(4, 4, leaves[0], [], root(leaves))
    with pytest.raises(ProofError):
        verify_consistency(3, 2, root(leaves[:3]), root(leaves[:2]), [])
    verify_consistency(0, 4, EMPTY, root(leaves), [])
    verify_consistency(4, 4, root(leaves), root(leaves), [])
    with pytest.raises(ProofError):
        verify_consistency(4, 4, root(leaves), root(leaves[:3]), [])


@given(st.integers(1, 300), st.data())
def test_proofs_hold_for_any_size(size, data):
    leaves = many(size)
    index = data.draw(st.integers(0, size - 1))
    old = data.draw(st.integers(1, size))
    top = root(leaves)
    verify_inclusion(index, size, leaves[index], inclusion_proof(index, leaves), top)
    verify_consistency(old, size, root(leaves[:old]), top, consistency_proof(old, leaves))
