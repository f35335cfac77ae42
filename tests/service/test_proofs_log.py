"""C2SP tlog-proof bundles (issue 28): an entry proven offline with nothing but the log's
key; a forged tree, another entry or another key is refused."""

from __future__ import annotations

import pytest

from service.transparency.checkpoint import Checkpoint
from service.transparency.cosignatures import Cosigner
from service.transparency.entries import HeadEntry
from service.transparency.merkle import inclusion_proof, leaf_hash, root
from service.transparency.notes import Signer, sign
from service.transparency.proofs import BundleError, ProofBundle

LOG = Signer.generate("tongiaki.example/log")
ENTRIES = [HeadEntry(f"game/g{i}", i + 1, f"{i:064x}", "cd" * 32).data for i in range(13)]


def bundle(index: int, leaves: list[bytes], signer: Signer = LOG) -> ProofBundle:
    point = Checkpoint(signer.name, len(leaves), root(leaves))
    note = sign(point.text, signer) + Cosigner.generate("w.example").cosign(point.text, 1).line
    proof = tuple(inclusion_proof(index, leaves))
    return ProofBundle(index, proof, note, ENTRIES[index])


def test_a_bundle_proves_its_entry_offline_and_reads_back():
    leaves = [leaf_hash(e) for e in ENTRIES]
    made = bundle(5, leaves)
    text = made.text
    assert text.startswith("c2sp.org/tlog-proof@v1\nextra ") and "\nindex 5\n" in text
    again = ProofBundle.parse(text)
    assert again == made
    point = again.verify((LOG.verifier,))
    assert (point.origin, point.size) == ("tongiaki.example/log", 13)
    assert again.verify((LOG.verifier,), ENTRIES[5]) == point


def test_a_bundle_that_proves_nothing_is_refused():
    leaves = [leaf_hash(e) for e in ENTRIES]
    made = bundle(5, leaves)
    with pytest.raises(BundleError, match="not in the tree"):  # another entry
        made.verify((LOG.verifier,), ENTRIES[6])
    forked = [*leaves[:5], leaf_hash(b"rewritten"), *leaves[6:]]
    with pytest.raises(BundleError, match="not in the tree"):  # a rewritten history, re-signed
        bundle(5, forked).verify((LOG.verifier,), ENTRIES[5])
    impostor = Signer.generate("tongiaki.example/log")
    with pytest.raises(BundleError, match="does not check"):  # another key of the same name
        bundle(5, leaves, impostor).verify((LOG.verifier,))
    other = Signer.generate("other.example/log")
    with pytest.raises(BundleError, match="not signed by the log it names"):
        bundle(5, leaves, other).verify((LOG.verifier, other.verifier))
    with pytest.raises(BundleError, match="no entry"):
        ProofBundle(5, made.proof, made.note).verify((LOG.verifier,))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "c2sp.org/tlog-proof@v2\nindex 1\n\nx\n",
        "c2sp.org/tlog-proof@v1\nindex 01\n\nx\n",
        "c2sp.org/tlog-proof@v1\nindex 1\nAAAA\n\nx\n",  # not a hash
        "c2sp.org/tlog-proof@v1\nextra !!\nindex 1\n\nx\n",
        "c2sp.org/tlog-proof@v1\nindex 1\n",  # no checkpoint
    ],
)
def test_what_is_not_a_bundle(text):
    with pytest.raises(BundleError):
        ProofBundle.parse(text)
