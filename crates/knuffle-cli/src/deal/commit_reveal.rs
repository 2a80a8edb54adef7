//! `knuffle deal --commit` and `--reveal`: a provably fair deal by
//! commit-reveal (format `knuffle-vd/1`).
//!
//! `--commit --beacon-round R` draws a fresh 256-bit secret, keeps it in a
//! new file readable only by its owner (mode 0600, never overwriting a
//! file; a FIFO or device is written in place:
//! [`knuffle_io::write_new_file`]), and
//! prints the commitment `C = H("knuffle-vd/1 commit" || lp("perm") || P ||
//! lp(secret) || lp("drand:<chain>:<R>"))` to publish before round R exists.
//! `--reveal SECRET_FILE --client-seed TEXT --beacon FILE --transcript FILE`
//! deals from the secret, the player's seed and the beacon round (sources in
//! that order) and writes the transcript anyone can check with
//! `knuffle verify`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use knuffle_draw::encode::{digest_from_hex, to_hex};
use knuffle_draw::{Mode, Population, Source, beacon_ref, commitment, make_transcript};
use serde_json::{Value, json};

use super::args::Args;
use super::board::{board_rows, write_rows};
use crate::draw_io::{beacon_chain, read_beacon};
use crate::emit::write_stdout;
use crate::failure::CliError;

/// The fixed, documented card list the deal draws from
/// ([`knuffle_draw::card_deck`]), or the custom items.
fn population(args: &Args) -> Population {
    if args.items.is_empty() {
        knuffle_draw::card_deck(args.decks as usize, args.jokers as usize)
    } else {
        Population::Items(args.items.clone())
    }
}

/// How many cards the deal takes.
fn cards_needed(args: &Args, n: u64) -> Result<u64, String> {
    if args.shuffle {
        return Ok(n);
    }
    let needed = u128::from(args.players) * u128::from(args.cards) + u128::from(args.board);
    if needed == 0 {
        return Err("nothing to deal: --cards and --board are both 0".to_owned());
    }
    if needed > u128::from(n) {
        return Err(format!("the deal needs {needed} cards, the deck has {n}"));
    }
    Ok(needed as u64)
}

/// Runs `deal --commit` or `deal --reveal`.
pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let text = if args.verifiable.commit {
        commit(args)?
    } else {
        reveal(args)?
    };
    write_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn commit(args: &Args) -> Result<String, CliError> {
    let v = &args.verifiable;
    let round = v.beacon_round.expect("clap requires --beacon-round");
    let chain = v
        .beacon_chain
        .clone()
        .unwrap_or_else(|| knuffle_draw::DRAND_MAINNET.to_owned())
        .to_ascii_lowercase();
    let population = population(args);
    cards_needed(args, population.count()).map_err(CliError::invalid)?;
    let digest = population.digest();
    let beacon = beacon_ref(&chain, round);
    let secret = knuffle_draw::new_secret();
    let c = commitment(Mode::Perm, &digest, &secret, &beacon);
    let path = v
        .secret_file
        .clone()
        .unwrap_or_else(|| format!("knuffle-deal-{}.secret", &to_hex(&c)[..16]));
    let record = json!({
        "format": "knuffle-vd/1 secret",
        "secret": secret,
        "commitment": to_hex(&c),
        "beacon": beacon,
        "mode": "perm",
        "population_digest": to_hex(&digest),
    });
    let text = serde_json::to_string_pretty(&record).expect("JSON") + "\n";
    knuffle_io::write_new_file(Path::new(&path), text.as_bytes(), 0o600).map_err(|e| match e {
        knuffle_io::FileError { error, .. }
            if error.kind() == std::io::ErrorKind::AlreadyExists =>
        {
            CliError::plain(format!(
                "{path}: already exists (a secret file is never overwritten; choose \
                     --secret-file)"
            ))
        }
        other => CliError::plain(other.to_string()),
    })?;
    let mut out = String::new();
    let _ = writeln!(out, "commitment: {}", to_hex(&c));
    let _ = writeln!(out, "beacon: {beacon}");
    let _ = writeln!(out, "population: {}", to_hex(&digest));
    let _ = writeln!(
        out,
        "secret: kept in {path} (readable only by you); publish the commitment and the beacon \
         round now, before round {round} exists; deal after it with --reveal {path}"
    );
    Ok(out)
}

fn read_secret(path: &str) -> Result<(String, [u8; 32], String), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{path}: not a secret file: {e}"))?;
    if value.get("format").and_then(Value::as_str) != Some("knuffle-vd/1 secret") {
        return Err(format!("{path}: not a knuffle-vd/1 secret file"));
    }
    let field = |name: &str| {
        value
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("{path}: no \"{name}\" in the secret file"))
    };
    let commitment = digest_from_hex(&field("commitment")?).map_err(|e| format!("{path}: {e}"))?;
    Ok((field("secret")?, commitment, field("beacon")?))
}

fn reveal(args: &Args) -> Result<String, CliError> {
    let v = &args.verifiable;
    let usage = CliError::invalid;
    let secret_path = v.reveal.as_deref().expect("--reveal");
    let (secret, committed, beacon_name) = read_secret(secret_path).map_err(usage)?;
    let population = population(args);
    let digest = population.digest();
    if commitment(Mode::Perm, &digest, &secret, &beacon_name) != committed {
        return Err(usage(format!(
            "{secret_path}: the deck differs from the committed one (or the secret file was \
             altered): deal with the same deck options as at --commit"
        )));
    }
    let beacon_path = v.beacon.as_deref().expect("--beacon");
    let beacon = read_beacon(beacon_path).map_err(usage)?;
    let chain = beacon_chain(&beacon, v.beacon_chain.as_deref()).map_err(usage)?;
    let used = beacon_ref(&chain, beacon.round);
    if used != beacon_name {
        return Err(usage(format!(
            "{beacon_path}: the beacon file is {used}, but the commitment names {beacon_name}"
        )));
    }
    let k = cards_needed(args, population.count()).map_err(usage)?;
    let sources = [
        Source::Commit {
            secret,
            commitment: committed,
            beacon: beacon_name,
        },
        Source::Text(v.client_seed.clone().expect("--client-seed")),
        Source::from_beacon(&chain, &beacon),
    ];
    let transcript = make_transcript(Mode::Perm, &population, true, &sources, k)
        .map_err(|e| usage(e.to_string()))?;
    let path = v.transcript.as_deref().expect("--transcript");
    knuffle_io::write_file(Path::new(path), transcript.to_json().as_bytes())
        .map_err(|e| CliError::plain(e.to_string()))?;
    Ok(render(args, &transcript.result.items))
}

/// The dealt cards, round-robin to the players, then the board (as
/// `Deck::deal` deals), laid out as `knuffle deal` prints them.
fn render(args: &Args, drawn: &[String]) -> String {
    if args.shuffle {
        return format!("deck: {}\n", drawn.join(" "));
    }
    let players = args.players as usize;
    let in_hands = players * args.cards as usize;
    let hands = if args.cards == 0 { 0 } else { players };
    let mut rows: Vec<(String, String)> = (0..hands)
        .map(|p| {
            let hand: Vec<&str> = drawn[..in_hands]
                .iter()
                .skip(p)
                .step_by(players)
                .map(String::as_str)
                .collect();
            (format!("player {}", p + 1), hand.join(" "))
        })
        .collect();
    let board: Vec<String> = drawn[in_hands..].to_vec();
    rows.extend(board_rows(&board));
    let mut out = String::new();
    write_rows(&rows, &mut out);
    out
}
