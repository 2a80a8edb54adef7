"""Generator.deal: the deal of `knuffle deal --seed ...`."""

import pytest

import knuffle


def test_bridge_deal_uses_every_card_once():
    hands = knuffle.Generator("bridge").deal()
    assert len(hands) == 4 and all(len(h) == 13 for h in hands)
    cards = [c for h in hands for c in h]
    assert len(set(cards)) == 52 and hands.board == [] and hands.remaining == 0


def test_holdem_board_and_ascii():
    h = knuffle.Generator("holdem").deal(hands=6, cards_each=2, board=5, ascii=True)
    assert len(h) == 6 and len(h.board) == 5 and h.remaining == 52 - 17
    assert all(len(card) == 2 for hand in h for card in hand)
    again = knuffle.Generator("holdem").deal(hands=6, cards_each=2, board=5, ascii=True)
    assert list(h) == list(again) and h.board == again.board


def test_impossible_deals():
    g = knuffle.Generator("x")
    with pytest.raises(ValueError, match="cannot deal 60 cards"):
        g.deal(hands=10, cards_each=6)
    with pytest.raises(ValueError, match="nothing to deal"):
        g.deal(hands=2, cards_each=0)
    with pytest.raises(ValueError):
        g.deal(hands=0)
    with pytest.raises(TypeError):
        g.deal(hands="4")


def test_shoe_and_jokers_match_the_command_line_deck():
    h = knuffle.Generator("shoe").deal(hands=3, cards_each=2, decks=6, jokers=2, ascii=True)
    assert h.remaining == 6 * 54 - 6
    with pytest.raises(ValueError, match="decks"):
        knuffle.Generator("shoe").deal(decks=0)


def test_the_old_keyword_names_still_deal_the_same_and_warn():
    new = knuffle.Generator("names").deal(hands=5, cards_each=3, board=2)
    with pytest.warns(DeprecationWarning) as caught:
        old = knuffle.Generator("names").deal(players=5, cards=3, board=2)
    assert sorted(str(w.message).split(" (")[0] for w in caught) == [
        "cards= is now cards_each=",
        "players= is now hands=",
    ]
    assert list(old) == list(new) and old.board == new.board
    with pytest.raises(TypeError, match="not both"):
        knuffle.Generator("names").deal(hands=5, players=5)
