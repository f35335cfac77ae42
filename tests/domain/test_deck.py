"""Fair draws: tongiaki-deck-v1, its commitment and its verification (design.md)."""

import hashlib

import pytest

from domain.deck import ALGORITHM, Deck, commitment, complete_order, draw_order, verify_draws
from domain.tiles import PILE

SEED = bytes(range(32))


def test_the_draw_order_is_a_permutation_of_the_31_pile_tiles():
    order = draw_order(SEED, "g1", ["a", "b"])
    assert sorted(order) == sorted(PILE) and len(order) == 31


def test_the_order_is_a_deterministic_function_of_seed_game_and_entropy():
    base = draw_order(SEED, "g1", ["a", "b"])
    assert draw_order(SEED, "g1", ["a", "b"]) == base
    assert draw_order(SEED, "g2", ["a", "b"]) != base
    assert draw_order(SEED, "g1", ["a", "c"]) != base
    assert draw_order(SEED, "g1", ["ab", ""]) != base  # entropy is length-prefixed
    assert draw_order(b"\x01" * 32, "g1", ["a", "b"]) != base


def test_the_published_algorithm_pins_a_known_vector():
    # Guards the protocol: changing the algorithm must change its name.
    assert draw_order(SEED, "g1", ["a", "b"])[:6] == (
        "fidschi",
        "ocean11",
        "tuamotu",
        "rapa_nui",
        "ocean7",
        "mangareva",
    )


def test_an_independent_implementation_of_the_documented_steps_agrees():
    import hmac

    context = b"tongiaki-deck-v1\x00g1\x00" + b"\x00\x00\x00\x01a" + b"\x00\x00\x00\x01b"
    stream = b"".join(
        hmac.new(SEED, context + i.to_bytes(8, "big"), hashlib.sha256).digest() for i in range(40)
    )
    numbers = iter(int.from_bytes(stream[k : k + 4], "big") for k in range(0, len(stream), 4))
    order = list(PILE)
    for i in range(30, 0, -1):
        n = i + 1
        x = next(numbers)
        while x >= 2**32 - (2**32 % n):
            x = next(numbers)
        j = x % n
        order[i], order[j] = order[j], order[i]
    assert tuple(order) == draw_order(SEED, "g1", ["a", "b"])


def test_commitment_is_sha256_of_the_seed():
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_verification_accepts_the_true_seed_and_every_recorded_draw():
    order = draw_order(SEED, "g1", ["x"])
    report = verify_draws(SEED, commitment(SEED), "g1", ["x"], order[:12])
    assert report.ok and report.commitment_ok and report.draws_checked == 12


def test_verification_catches_a_wrong_seed_and_a_swapped_draw():
    order = list(draw_order(SEED, "g1", ["x"]))
    bad_seed = verify_draws(b"\x02" * 32, commitment(SEED), "g1", ["x"], order[:5])
    assert not bad_seed.ok and not bad_seed.commitment_ok
    order[3], order[4] = order[4], order[3]
    swapped = verify_draws(SEED, commitment(SEED), "g1", ["x"], order[:5])
    assert not swapped.ok and swapped.commitment_ok
    assert any("draw 4" in p for p in swapped.problems)


def test_a_fixed_deck_puts_the_given_tiles_first_then_the_canonical_order():
    deck = Deck.fixed(["ocean7", "tahiti"])
    assert deck.order[:2] == ("ocean7", "tahiti")
    assert sorted(deck.order) == sorted(PILE)
    report = verify_draws(
        deck.fixed_seed(), commitment(deck.fixed_seed()), "g", [], deck.order[:4], "fixed"
    )
    assert report.ok


def test_a_fixed_order_rejects_unknown_or_repeated_tiles():
    with pytest.raises(ValueError):
        complete_order(["tonga"])
    with pytest.raises(ValueError):
        complete_order(["ocean1", "ocean1"])


def test_a_seeded_deck_names_its_algorithm():
    assert Deck.from_seed(SEED, "g", []).algorithm == ALGORITHM
