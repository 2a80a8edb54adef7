//! The options of `knuffle deal` (clap), the commit-reveal ones included,
//! and its help texts.

use clap::{Parser, ValueEnum};

use crate::emit::ColorWhen;

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
pub(crate) enum Format {
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
    pub(super) players: u64,

    /// Cards dealt to each hand (0 with --board: the board only).
    #[arg(
        short = 'c',
        long = "cards-each",
        alias = "cards",
        value_name = "N",
        default_value_t = 5
    )]
    pub(super) cards: u64,

    /// Community cards after the hands (5 = flop, turn and river).
    #[arg(short, long, value_name = "N", default_value_t = 0)]
    pub(super) board: u64,

    /// Shuffle and print the whole deck instead of dealing hands.
    #[arg(long, conflicts_with_all = ["players", "cards", "board", "sort"])]
    pub(super) shuffle: bool,

    /// Standard decks in the shoe.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub(super) decks: u64,

    /// Jokers added to each deck.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub(super) jokers: u64,

    /// Write cards in ASCII (AS TH JK) instead of A♠ 10♥ 🃏.
    #[arg(long)]
    pub(super) ascii: bool,

    /// Sort each hand (cards by suit ♠ ♥ ♦ ♣ then rank, high first; custom
    /// items in the order given).
    #[arg(long)]
    pub(super) sort: bool,

    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub(super) format: Format,

    /// When to print red suits in red (text output only).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub(super) color: ColorWhen,

    /// Seed text (any text); the same seed replays the same deal.
    #[arg(long, value_name = "TEXT")]
    pub(super) seed: Option<String>,

    /// Do not print the seed.
    #[arg(short, long)]
    pub(super) quiet: bool,

    /// Also describe the deck, the entropy it needs and the seed's, on standard error.
    #[arg(short, long)]
    pub(super) verbose: bool,

    /// Refuse a seed whose estimated entropy cannot reach every order of the deck
    /// (instead of warning); see "--strict measures" below.
    #[arg(long)]
    pub(super) strict: bool,

    #[command(flatten)]
    pub(super) verifiable: VerifiableArgs,

    /// A custom deck: deal these items instead of playing cards.
    #[arg(value_name = "ITEM", conflicts_with_all = ["decks", "jokers", "ascii"])]
    pub(super) items: Vec<String>,
}

/// The commit-reveal options of `knuffle deal`.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct VerifiableArgs {
    /// Commit to a deal now: print a commitment to publish, keep the secret in
    /// a file only you can read. Needs --beacon-round.
    #[arg(long, requires = "beacon_round",
          conflicts_with_all = ["seed", "reveal", "client_seed", "beacon", "transcript",
                                "format", "sort", "ascii", "strict", "verbose", "quiet"])]
    pub(super) commit: bool,

    /// The future drand round whose randomness will join the deal.
    #[arg(long, value_name = "R", requires = "commit")]
    pub(super) beacon_round: Option<u64>,

    /// The drand chain hash (default: drand mainnet).
    #[arg(long, value_name = "HASH")]
    pub(super) beacon_chain: Option<String>,

    /// Where --commit keeps the secret (default: knuffle-deal-COMMITMENT.secret).
    #[arg(long, value_name = "FILE", requires = "commit")]
    pub(super) secret_file: Option<String>,

    /// Deal from a commitment: the secret file --commit wrote.
    #[arg(long, value_name = "SECRET", requires_all = ["client_seed", "beacon", "transcript"],
          conflicts_with_all = ["seed", "format", "sort", "ascii", "strict", "verbose", "quiet"])]
    pub(super) reveal: Option<String>,

    /// The player's seed (any text), joined to the secret and the beacon.
    #[arg(long, value_name = "TEXT", requires = "reveal")]
    pub(super) client_seed: Option<String>,

    /// The drand round named in the commitment (the JSON drand serves).
    #[arg(long, value_name = "FILE", requires = "reveal")]
    pub(super) beacon: Option<String>,

    /// Write the knuffle-vd/1 transcript of the deal to FILE.
    #[arg(long, value_name = "FILE", requires = "reveal")]
    pub(super) transcript: Option<String>,
}

impl VerifiableArgs {
    /// Whether a commit or a reveal was asked for.
    pub(super) fn active(&self) -> bool {
        self.commit || self.reveal.is_some()
    }
}
