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

use knuffle::DefaultRng;
use knuffle::cards::{Card, DealError, Deck};

use crate::emit::{self, json_string, json_string_array, write_stdout};
use crate::failure::CliError;
use crate::seeding::RunSeed;

mod args;
mod board;
mod commit_reveal;

pub(crate) use args::Args;
use args::Format;
use board::{board_rows, write_rows};

/// What was dealt, as display labels.
struct Dealt {
    hands: Vec<Vec<String>>,
    board: Vec<String>,
    remaining: usize,
}

/// Runs `knuffle deal` with the arguments after `deal`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle deal", args)?;
    if args.verifiable.active() {
        return commit_reveal::run(&args);
    }
    if !args.shuffle && args.cards == 0 && args.board == 0 {
        return Err(CliError::invalid(
            "nothing to deal: --cards-each and --board are both 0",
        ));
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
    seed.announce_reach("deal", deck_size, &what, args.strict)?;
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
        write_stdout(&render_shuffle(&args, &seed, &order))?;
        return Ok(ExitCode::SUCCESS);
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
            return Err(CliError::invalid(message));
        }
    };
    if args.verbose {
        describe(&args, &seed, deck_size, needed as u64);
    }
    let output = match args.format {
        Format::Text => render_text(&args, &seed, &dealt),
        Format::Json => render_json(&args, &seed, deck_size, &dealt),
    };
    write_stdout(&output)?;
    Ok(ExitCode::SUCCESS)
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

fn render_text(args: &Args, seed: &RunSeed, dealt: &Dealt) -> String {
    let mut rows: Vec<(String, String)> = dealt
        .hands
        .iter()
        .enumerate()
        .map(|(i, hand)| (format!("player {}", i + 1), hand.join(" ")))
        .collect();
    rows.extend(board_rows(&dealt.board));
    let mut out = seed_line(args, seed);
    write_rows(&rows, &mut out);
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
