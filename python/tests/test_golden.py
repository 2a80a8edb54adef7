"""The golden vectors shared with the Rust tests (crates/knuffle/tests/cross_language.rs)."""

import hashlib

import numpy as np

import knuffle


def test_permutations_match_rust(golden):
    cases = golden["permutations"]
    assert len(cases) == 9
    for case in cases:
        for threads in (1, 2):
            p = knuffle.Generator(case["seed"], threads=threads).permutation(case["n"])
            assert p.dtype == np.int64
            if "permutation" in case:
                assert p.tolist() == case["permutation"], case["seed"]
            else:
                digest = hashlib.sha256(p.astype("<u8").tobytes()).hexdigest()
                assert digest == case["sha256"], (case["seed"], case["n"], threads)


def test_shuffle_of_arange_is_the_golden_permutation(golden):
    for case in golden["permutations"]:
        if "permutation" not in case:
            continue
        for dtype in (np.int8, np.int16, np.int32, np.int64, np.float64):
            if case["n"] > np.iinfo(np.int8).max and dtype == np.int8:
                continue
            a = np.arange(case["n"], dtype=dtype)
            knuffle.Generator(case["seed"]).shuffle(a)
            assert a.tolist() == case["permutation"], (case["seed"], dtype)


def test_deals_match_rust_and_the_command_line(golden):
    (case,) = golden["deals"]
    hands = knuffle.Generator(case["seed"]).deal(hands=case["players"], cards_each=case["cards"], ascii=True)
    assert [" ".join(h) for h in hands] == case["hands"]
