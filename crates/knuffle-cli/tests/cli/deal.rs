//! `knuffle deal` through the real binary: golden deals under fixed seeds
//! (these pin the output across runs, platforms and releases), replay,
//! entropy warnings and errors.
//!
//! Regenerate the golden files after an intended change with
//! `KNUFFLE_BLESS=1 cargo test -p knuffle-cli --test cli deal::`.

use std::collections::BTreeSet;

use knuffle::cards::{Card, Deck};

use crate::support::{golden, knuffle, stderr, stdout};

#[test]
fn golden_deals_under_fixed_seeds() {
    golden(
        "deal-bridge.txt",
        &[
            "deal",
            "--players",
            "4",
            "--cards",
            "13",
            "--seed",
            "golden",
        ],
    );
    golden(
        "deal-holdem.txt",
        &[
            "deal",
            "--players",
            "6",
            "--cards",
            "2",
            "--board",
            "5",
            "--seed",
            "golden",
        ],
    );
    golden(
        "deal-five-ascii-sorted.txt",
        &[
            "deal", "--cards", "5", "--ascii", "--sort", "--seed", "golden",
        ],
    );
    golden(
        "deal-holdem.json",
        &[
            "deal",
            "--players",
            "3",
            "--cards",
            "2",
            "--board",
            "5",
            "--format",
            "json",
            "--seed",
            "golden",
        ],
    );
    golden(
        "deal-shuffle-jokers.txt",
        &[
            "deal",
            "--shuffle",
            "--jokers",
            "2",
            "--ascii",
            "--seed",
            "golden",
        ],
    );
    golden(
        "deal-shoe.txt",
        &[
            "deal",
            "--decks",
            "6",
            "--players",
            "3",
            "--cards",
            "2",
            "--seed",
            "golden",
        ],
    );
    golden(
        "deal-custom.txt",
        &[
            "deal",
            "--players",
            "2",
            "--cards",
            "2",
            "--seed",
            "golden",
            "Ann",
            "Bob",
            "Cy",
            "Dee",
            "Eve",
        ],
    );
}

#[test]
fn the_deal_is_the_library_deal_for_the_same_seed() {
    let output = knuffle(&[
        "deal",
        "--players",
        "6",
        "--cards",
        "2",
        "--board",
        "5",
        "--seed",
        "lib",
    ]);
    let mut rng = knuffle::Seed::from_text("lib").rng();
    let deal = Deck::standard().deal(6, 2, 5, &mut rng).unwrap();
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "seed: lib");
    for (i, hand) in deal.hands.iter().enumerate() {
        let cards: Vec<String> = hand.iter().map(Card::to_string).collect();
        assert_eq!(
            lines[1 + i],
            format!("player {}: {}", i + 1, cards.join(" "))
        );
    }
    let flop: Vec<String> = deal.board[..3].iter().map(Card::to_string).collect();
    assert_eq!(lines[7], format!("flop:     {}", flop.join(" ")));
    assert_eq!(lines[8], format!("turn:     {}", deal.board[3]));
    assert_eq!(lines[9], format!("river:    {}", deal.board[4]));
}

#[test]
fn a_bridge_deal_uses_every_card_once() {
    let output = knuffle(&[
        "deal",
        "--players",
        "4",
        "--cards",
        "13",
        "--ascii",
        "--quiet",
    ]);
    let text = stdout(&output);
    assert!(!text.contains("seed"), "--quiet hides the seed: {text}");
    let cards: Vec<Card> = text
        .lines()
        .flat_map(|line| line.split_once(": ").unwrap().1.split(' '))
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(cards.len(), 52);
    assert_eq!(cards.iter().collect::<BTreeSet<_>>().len(), 52);
}

#[test]
fn every_deal_prints_a_seed_that_replays_it() {
    let first = knuffle(&["deal", "--players", "4", "--cards", "13"]);
    let text = stdout(&first);
    let seed = text.lines().next().unwrap().strip_prefix("seed: ").unwrap();
    assert_eq!(seed.len(), 64, "a fresh 256-bit seed in hex: {seed}");
    assert!(seed.bytes().all(|b| b.is_ascii_hexdigit()));
    let replay = knuffle(&["deal", "--players", "4", "--cards", "13", "--seed", seed]);
    assert_eq!(stdout(&replay), text);
    let other = knuffle(&["deal", "--players", "4", "--cards", "13"]);
    assert_ne!(stdout(&other), text, "two fresh seeds deal differently");
}

#[test]
fn seeds_with_spaces_are_printed_ready_to_paste() {
    let output = knuffle(&["deal", "--seed", "friday poker"]);
    assert!(stdout(&output).starts_with("seed: 'friday poker'\n"));
    let json = knuffle(&["deal", "--seed", "say \"hi\"", "--format", "json"]);
    assert!(
        stdout(&json).contains(r#""seed": "say \"hi\"","#),
        "{}",
        stdout(&json)
    );
}

#[test]
fn impossible_deals_are_refused_with_status_2() {
    let output = knuffle(&["deal", "--players", "10", "--cards", "6"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr(&output),
        "knuffle deal: cannot deal 60 cards from a deck of 52 (10 players × 6 cards + 0 board cards)\n"
    );
    let huge = knuffle(&[
        "deal",
        "--players",
        "1000000",
        "--cards",
        "18446744073709551615",
    ]);
    assert_eq!(huge.status.code(), Some(2));
    let jokers = knuffle(&["deal", "--cards", "54", "--jokers", "2"]);
    assert!(jokers.status.success(), "54 cards fit a deck with 2 jokers");
    let zero = knuffle(&["deal", "--players", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    let custom = knuffle(&["deal", "--cards", "3", "a", "b"]);
    assert_eq!(custom.status.code(), Some(2));
    assert!(stderr(&custom).contains("from a deck of 2"));
    let nothing = knuffle(&["deal", "--cards", "0", "--players", "3"]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(nothing.stdout.is_empty());
    assert!(
        stderr(&nothing)
            .starts_with("knuffle deal: nothing to deal: --cards-each and --board are both 0\n"),
        "{}",
        stderr(&nothing)
    );
}

#[test]
fn a_board_only_deal_shows_no_empty_hands() {
    let output = knuffle(&[
        "deal",
        "--cards",
        "0",
        "--board",
        "3",
        "--players",
        "4",
        "--ascii",
        "--seed",
        "flop",
    ]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(!text.contains("player"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("flop:")).count(), 1);
    let json = knuffle(&[
        "deal", "--cards", "0", "--board", "3", "--format", "json", "--seed", "flop",
    ]);
    assert!(
        stdout(&json).contains("\"hands\": [],"),
        "{}",
        stdout(&json)
    );
}

#[test]
fn a_64_bit_seed_gets_a_warning_and_strict_refuses_it() {
    let output = knuffle(&["deal", "--seed", "12345"]);
    assert!(output.status.success());
    let warning = stderr(&output);
    assert!(
        warning.contains("warning") && warning.contains("64 bits") && warning.contains("225.6"),
        "{warning}"
    );
    let strict = knuffle(&["deal", "--seed", "12345", "--strict"]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(strict.stdout.is_empty());
    let phrase = knuffle(&["deal", "--seed", "a long passphrase", "--strict"]);
    assert_eq!(
        phrase.status.code(),
        Some(2),
        "17 characters are not 225.6 bits"
    );
    let long = "Sphinx of black quartz, judge my vow; 17 zebras quietly hop over 9 lazy \
                dwarves near Oslo at dawn, whistling";
    let long = knuffle(&["deal", "--seed", long, "--strict"]);
    assert!(long.status.success(), "{}", stderr(&long));
    assert!(long.stderr.is_empty());
}

#[test]
fn strict_refuses_short_seed_texts_and_keeps_the_fresh_default() {
    for seed in [
        "",
        "a",
        "golden",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ] {
        let output = knuffle(&["deal", "--seed", seed, "--strict"]);
        assert_eq!(output.status.code(), Some(2), "{seed:?}");
        assert!(output.stdout.is_empty());
        assert!(
            stderr(&output).contains("bits of entropy"),
            "{}",
            stderr(&output)
        );
    }
    let fresh = knuffle(&["deal", "--strict", "--decks", "8"]);
    assert!(fresh.status.success(), "{}", stderr(&fresh));
    // Replaying the printed fresh seed under --strict works too.
    let text = stdout(&fresh);
    let seed = text.lines().next().unwrap().trim_start_matches("seed: ");
    let replay = knuffle(&["deal", "--strict", "--seed", seed]);
    assert!(replay.status.success(), "{}", stderr(&replay));
}

#[test]
fn help_shows_examples_and_the_entropy_of_a_deck() {
    let output = knuffle(&["deal", "--help"]);
    assert!(output.status.success());
    let help = stdout(&output);
    assert!(help.contains("Usage: knuffle deal"), "{help}");
    assert!(help.contains("knuffle deal --hands 6 --cards-each 2 --board 5"));
    assert!(help.contains("log2(52!) = 225.58"));
}

#[test]
fn verbose_states_the_entropy_needed_and_available() {
    let output = knuffle(&["deal", "--verbose", "--seed", "v", "--cards", "5"]);
    let notes = stderr(&output);
    assert!(notes.contains("log2(52!) = 225.58 bits"), "{notes}");
    assert!(notes.contains("log2(52!/47!) = 28.22 bits"), "{notes}");
}

#[test]
fn cards_parse_in_both_notations_from_the_output() {
    let unicode = stdout(&knuffle(&["deal", "--shuffle", "--seed", "n", "--quiet"]));
    let ascii = stdout(&knuffle(&[
        "deal",
        "--shuffle",
        "--seed",
        "n",
        "--quiet",
        "--ascii",
    ]));
    let a: Deck = unicode
        .trim()
        .strip_prefix("deck: ")
        .unwrap()
        .parse()
        .unwrap();
    let b: Deck = ascii
        .trim()
        .strip_prefix("deck: ")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(a, b);
    let mut sorted = a.into_vec();
    sorted.sort();
    assert_eq!(sorted, Deck::standard().into_vec());
}

#[test]
fn red_suits_are_red_only_when_asked_and_never_in_json() {
    let plain = stdout(&knuffle(&["deal", "--shuffle", "--seed", "c"]));
    assert!(!plain.contains('\x1b'), "no colour when not a terminal");
    let colored = stdout(&knuffle(&[
        "deal",
        "--shuffle",
        "--seed",
        "c",
        "--color",
        "always",
    ]));
    assert_eq!(colored.matches("\x1b[31m").count(), 26, "the 26 red cards");
    for red in colored.split("\x1b[31m").skip(1) {
        let card = red.split("\x1b[0m").next().unwrap();
        assert!(card.ends_with('♥') || card.ends_with('♦'), "{card}");
    }
    let json = stdout(&knuffle(&[
        "deal", "--seed", "c", "--color", "always", "--format", "json",
    ]));
    assert!(!json.contains('\x1b'));
}

#[test]
fn hands_and_cards_each_are_the_long_names_and_the_old_ones_still_work() {
    let new = knuffle(&[
        "deal",
        "--hands",
        "3",
        "--cards-each",
        "4",
        "--seed",
        "names",
        "-q",
    ]);
    let old = knuffle(&[
        "deal",
        "--players",
        "3",
        "--cards",
        "4",
        "--seed",
        "names",
        "-q",
    ]);
    assert!(new.status.success());
    assert_eq!(new.stdout, old.stdout);
    let help = String::from_utf8(knuffle(&["deal", "--help"]).stdout).unwrap();
    assert!(
        help.contains("--hands <N>") && help.contains("--cards-each <N>"),
        "{help}"
    );
}
