//! A public lottery: 3 winning tickets among 1..=500, seeded by public dice
//! rolls and a drand beacon round; prints the winners and the transcript
//! anyone can check (`knuffle verify`, or the Python reference verifier).
//!
//! `cargo run -p knuffle-draw --example public_lottery`

use knuffle_draw::{Mode, Population, Source, make_transcript, verify};

fn main() {
    let tickets = Population::range(1, 500).expect("a valid range");
    // Twenty dice rolls, read out in public.
    let dice = Source::Text("3 6 1 4 5 2 2 6 1 3 4 5 6 1 2 3 4 5 6 1".to_owned());
    // A beacon round (here a made-up signature; use the JSON drand serves).
    let beacon = Source::drand(knuffle_draw::DRAND_MAINNET, 5_000_000, vec![0x5a; 96]);
    let transcript =
        make_transcript(Mode::Perm, &tickets, true, &[dice, beacon], 3).expect("3 of 500");
    println!("winning tickets: {}", transcript.result.items.join(", "));
    let report = verify(&transcript, &tickets).expect("checkable");
    assert!(report.verified());
    print!("{}", transcript.to_json());
}
