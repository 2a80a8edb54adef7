//! `knuffle deal`: deal hands (and a board) from a fair, replayable deck.
//!
//! The deck is `knuffle::cards::Deck` (52 cards, jokers, a shoe of several
//! decks, or the items given as arguments); the deal is
//! `Deck::deal`, a partial Fisher–Yates shuffle that randomises only the
//! dealt cards (as in the 52-card deal write-up with a step table). `--shuffle` shuffles the whole deck instead
//! (`Deck::shuffle`, Durstenfeld).

use std::cmp::Ordering;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use knuffle::DefaultRng;
use knuffle::cards::{Card, DealError, Deck};

use crate::emit::{self, ColorWhen, USAGE, fail, json_string, json_string_array, write_stdout};
use crate::seeding::RunSeed;

mod commit_reveal;

const ABOUT: &str =
    "Deal cards fairly: hands, a board, or a whole shuffled deck, replayable from a seed";

const LONG_ABOUT: &str = "\
Deal cards fairly: hands, a board, or a whole shuffled deck, replayable from a seed.

Only the dealt cards are randomised (a partial Fisher-Yates shuffle: one draw per
dealt card); every selection and order of dealt cards is exactly equally likely.
Cards go round-robin, one to each player per round, then to the board.

Randomness: ChaCha20 with a 256-bit key. Without --seed, a fresh 256-bit seed comes
from the operating system; either way the first output line is `seed: TEXT`, and
`--seed TEXT` replays the deal exactly, on any platform.

Entropy: every order of a 52-card deck needs log2(52!) = 225.58 bits. A 256-bit key
reaches every order; a 64-bit seed (such as --seed 12345) cannot, and knuffle warns
(or refuses, with --strict).

--strict measures every seed text, conservatively: each character counts log2 of the
alphabet of the character classes the text uses (lowercase 26, uppercase 26, digits
10, space 1, other ASCII punctuation 32, other characters 100 each), a character that
repeats the previous one or continues a run (aaa, 123, cba) counts 1 bit, a decimal
integer at most 64 bits, the total at most 256. The seed must reach log2(N!) bits for
the deck of N cards (225.6 for 52, more for a shoe). So --seed '' or --seed a are
refused, a sentence of some 50 random words or 64 hex digits passes; the fresh
default seed always does.";

const EXAMPLES: &str = "\
Examples:
  knuffle deal --hands 4 --cards-each 13              bridge: four hands of 13
  knuffle deal --hands 6 --cards-each 2 --board 5     hold'em: hole cards, flop, turn, river
  knuffle deal --cards-each 5                         one five-card hand
  knuffle deal --shuffle --ascii                      the whole deck, shuffled: AS TH ...
  knuffle deal --decks 6 --cards-each 2 --hands 3     from a six-deck shoe
  knuffle deal --jokers 2 --cards-each 7 --sort       jokers in the deck; hands sorted
  knuffle deal --seed 'friday poker' --format json    replayable, for programs
  knuffle deal --hands 2 --cards-each 1 Ann Bob Cy Dee  a custom deck of any items
  knuffle deal --hands 2 --cards-each 2 --board 5 --commit --beacon-round 5000000
                                                      commit now (publish the commitment)
  knuffle deal --hands 2 --cards-each 2 --board 5 --reveal knuffle-deal-1a2b.secret \\
      --client-seed 'lucky 7' --beacon round-5000000.json --transcript deal.json
                                                      after the round; knuffle verify deal.json

Exit status: 0 success, 1 write error, 2 invalid arguments (an impossible deal, --strict).";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One line per hand, then the board.
    Text,
    /// One JSON object.
    Json,
}

#[derive(Parser, Debug)]
#[command(
    name = "knuffle deal",
    bin_name = "knuffle deal",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// Number of hands (players) to deal.
    #[arg(short = 'p', long = "hands", alias = "players", value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    players: u64,

    /// Cards dealt to each hand (0 with --board: the board only).
    #[arg(
        short = 'c',
        long = "cards-each",
        alias = "cards",
        value_name = "N",
        default_value_t = 5
    )]
    cards: u64,

    /// Community cards after the hands (5 = flop, turn and river).
    #[arg(short, long, value_name = "N", default_value_t = 0)]
    board: u64,

    /// Shuffle and print the whole deck instead of dealing hands.
    #[arg(long, conflicts_with_all = ["players", "cards", "board", "sort"])]
    shuffle: bool,

    /// Standard decks in the shoe.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    decks: u64,

    /// Jokers added to each deck.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=1000))]
    jokers: u64,

    /// Write cards in ASCII (AS TH JK) instead of A♠ 10♥ 🃏.
    #[arg(long)]
    ascii: bool,

    /// Sort each hand (cards by suit ♠ ♥ ♦ ♣ then rank, high first; custom
    /// items in the order given).
    #[arg(long)]
    sort: bool,

    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    format: Format,

    /// When to print red suits in red (text output only).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,

    /// Seed text (any text); the same seed replays the same deal.
    #[arg(long, value_name = "TEXT")]
    seed: Option<String>,

    /// Do not print the seed.
    #[arg(short, long)]
    quiet: bool,

    /// Also describe the deck, the entropy it needs and the seed's, on standard error.
    #[arg(short, long)]
    verbose: bool,

    /// Refuse a seed whose estimated entropy cannot reach every order of the deck
    /// (instead of warning); see "--strict measures" below.
    #[arg(long)]
    strict: bool,

    #[command(flatten)]
    verifiable: commit_reveal::VerifiableArgs,

    /// A custom deck: deal these items instead of playing cards.
    #[arg(value_name = "ITEM", conflicts_with_all = ["decks", "jokers", "ascii"])]
    items: Vec<String>,
}

/// What was dealt, as display labels.
struct Dealt {
    hands: Vec<Vec<String>>,
    board: Vec<String>,
    remaining: usize,
}

/// Runs `knuffle deal` with the arguments after `deal`.
pub fn run(args: &[OsString]) -> ExitCode {
    let args: Args = match emit::parse("knuffle deal", args) {
        Ok(args) => args,
        Err(code) => return code,
    };
    if args.verifiable.active() {
        return commit_reveal::run(&args);
    }
    if !args.shuffle && args.cards == 0 && args.board == 0 {
        return fail(
            "deal",
            "nothing to deal: --cards-each and --board are both 0",
            USAGE,
        );
    }
    let seed = RunSeed::choose(args.seed.clone());
    let custom = !args.items.is_empty();
    let deck_size = if custom {
        args.items.len() as u64
    } else {
        args.decks * (52 + args.jokers)
    };
    let what = if custom {
        format!("a deck of {deck_size} items")
    } else {
        format!("a deck of {deck_size} cards")
    };
    if let Err(code) = seed.announce_reach("deal", deck_size, &what, args.strict) {
        return code;
    }
    let mut rng = seed.rng();
    let color = args.format == Format::Text && args.color.enabled();
    let label = |card: &Card| {
        let text = if args.ascii {
            card.to_ascii()
        } else {
            card.to_string()
        };
        match card.suit() {
            Some(suit) if color && suit.is_red() => format!("\x1b[31m{text}\x1b[0m"),
            _ => text,
        }
    };

    if args.shuffle {
        let order: Vec<String> = if custom {
            let mut deck = Deck::new((0..args.items.len()).collect::<Vec<usize>>());
            deck.shuffle(&mut rng);
            deck.iter().map(|&i| args.items[i].clone()).collect()
        } else {
            let mut deck = Deck::shoe(args.decks as usize, args.jokers as usize);
            deck.shuffle(&mut rng);
            deck.iter().map(label).collect()
        };
        if args.verbose {
            describe(&args, &seed, deck_size, deck_size);
        }
        return write_stdout("deal", &render_shuffle(&args, &seed, &order));
    }

    let needed = u128::from(args.players) * u128::from(args.cards) + u128::from(args.board);
    let dealt = if custom {
        let deck = Deck::new((0..args.items.len()).collect::<Vec<usize>>());
        deal_named(deck, &args, &mut rng, usize::cmp, |i| {
            args.items[*i].clone()
        })
    } else {
        let deck = Deck::shoe(args.decks as usize, args.jokers as usize);
        deal_named(deck, &args, &mut rng, |a, b| b.cmp(a), label)
    };
    let dealt = match dealt {
        Ok(dealt) => dealt,
        Err(err) => {
            let message = format!(
                "{err} ({} player{} × {} card{} + {} board card{})",
                args.players,
                plural(args.players),
                args.cards,
                plural(args.cards),
                args.board,
                plural(args.board)
            );
            return fail("deal", &message, USAGE);
        }
    };
    if args.verbose {
        describe(&args, &seed, deck_size, needed as u64);
    }
    let output = match args.format {
        Format::Text => render_text(&args, &seed, &dealt),
        Format::Json => render_json(&args, &seed, deck_size, &dealt),
    };
    write_stdout("deal", &output)
}

/// Deals the hands and the board `args` asks for from `deck`
/// ([`Deck::deal`]); with `--sort` each hand is put in `order`; every item
/// is written as `name` gives it.
fn deal_named<T>(
    deck: Deck<T>,
    args: &Args,
    rng: &mut DefaultRng,
    order: impl Fn(&T, &T) -> Ordering,
    name: impl Fn(&T) -> String,
) -> Result<Dealt, DealError> {
    let deal = deck.deal(
        args.players as usize,
        args.cards as usize,
        args.board as usize,
        rng,
    )?;
    let mut hands = deal.hands;
    if args.cards == 0 {
        hands.clear(); // a board-only deal: no empty hands to show
    }
    if args.sort {
        hands
            .iter_mut()
            .for_each(|hand| hand.sort_unstable_by(&order));
    }
    Ok(Dealt {
        hands: hands
            .iter()
            .map(|h| h.iter().map(&name).collect())
            .collect(),
        board: deal.board.iter().map(&name).collect(),
        remaining: deal.rest.len(),
    })
}

fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `--verbose`: the deck, the entropy of every order and of this deal.
fn describe(args: &Args, seed: &RunSeed, deck_size: u64, dealt: u64) {
    let deck = if !args.items.is_empty() {
        format!("{deck_size} items given on the command line")
    } else {
        format!(
            "{deck_size} cards ({} deck{} of 52, {} joker{} each)",
            args.decks,
            plural(args.decks),
            args.jokers,
            plural(args.jokers)
        )
    };
    eprintln!("knuffle deal: seed: {} (replay with --seed)", seed.quoted());
    eprintln!("knuffle deal: deck: {deck}");
    eprintln!("knuffle deal: {}", seed.describe_reach(deck_size));
    let deal_bits = knuffle::entropy::entropy_bits_needed(deck_size)
        - knuffle::entropy::entropy_bits_needed(deck_size - dealt);
    let noun = if args.items.is_empty() {
        "card"
    } else {
        "item"
    };
    let within = if deal_bits <= 256.0 {
        "within the generator's 256-bit key"
    } else {
        "more than the generator's 256-bit key holds: not every such deal is reachable"
    };
    eprintln!(
        "knuffle deal: this deal draws {dealt} {noun}{} in order: log2({deck_size}!/{}!) = {deal_bits:.2} bits, \
         {within} (ChaCha20 keyed with SHA-256 of the seed text)",
        plural(dealt),
        deck_size - dealt
    );
}

fn seed_line(args: &Args, seed: &RunSeed) -> String {
    if args.quiet {
        String::new()
    } else {
        format!("seed: {}\n", seed.quoted())
    }
}

fn render_shuffle(args: &Args, seed: &RunSeed, order: &[String]) -> String {
    match args.format {
        Format::Text => format!("{}deck: {}\n", seed_line(args, seed), order.join(" ")),
        Format::Json => {
            let mut out = String::from("{\n");
            if !args.quiet {
                let _ = writeln!(out, "  \"seed\": {},", json_string(seed.text()));
            }
            let _ = writeln!(out, "  \"deck_size\": {},", order.len());
            let _ = writeln!(
                out,
                "  \"entropy_bits_needed\": {:.2},",
                knuffle::entropy::entropy_bits_needed(order.len() as u64)
            );
            let _ = writeln!(out, "  \"deck\": {}", json_string_array(order));
            out.push_str("}\n");
            out
        }
    }
}

/// Board labels: flop, turn and river for a board of 3 to 5 cards.
fn board_rows(board: &[String]) -> Vec<(String, String)> {
    if (3..=5).contains(&board.len()) {
        let mut rows = vec![("flop".to_owned(), board[..3].join(" "))];
        if let Some(turn) = board.get(3) {
            rows.push(("turn".to_owned(), turn.clone()));
        }
        if let Some(river) = board.get(4) {
            rows.push(("river".to_owned(), river.clone()));
        }
        rows
    } else if board.is_empty() {
        Vec::new()
    } else {
        vec![("board".to_owned(), board.join(" "))]
    }
}

fn render_text(args: &Args, seed: &RunSeed, dealt: &Dealt) -> String {
    let mut rows: Vec<(String, String)> = dealt
        .hands
        .iter()
        .enumerate()
        .map(|(i, hand)| (format!("player {}", i + 1), hand.join(" ")))
        .collect();
    rows.extend(board_rows(&dealt.board));
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut out = seed_line(args, seed);
    for (name, cards) in rows {
        let head = format!("{name}:");
        let line = format!("{head:<w$} {cards}", w = width + 1);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn render_json(args: &Args, seed: &RunSeed, deck_size: u64, dealt: &Dealt) -> String {
    let mut out = String::from("{\n");
    if !args.quiet {
        let _ = writeln!(out, "  \"seed\": {},", json_string(seed.text()));
    }
    let _ = writeln!(out, "  \"deck_size\": {deck_size},");
    let _ = writeln!(
        out,
        "  \"entropy_bits_needed\": {:.2},",
        knuffle::entropy::entropy_bits_needed(deck_size)
    );
    if dealt.hands.is_empty() {
        out.push_str("  \"hands\": [],\n");
    } else {
        out.push_str("  \"hands\": [\n");
        for (i, hand) in dealt.hands.iter().enumerate() {
            let comma = if i + 1 < dealt.hands.len() { "," } else { "" };
            let _ = writeln!(out, "    {}{comma}", json_string_array(hand));
        }
        out.push_str("  ],\n");
    }
    let _ = writeln!(out, "  \"board\": {},", json_string_array(&dealt.board));
    let _ = writeln!(out, "  \"remaining\": {}", dealt.remaining);
    out.push_str("}\n");
    out
}
