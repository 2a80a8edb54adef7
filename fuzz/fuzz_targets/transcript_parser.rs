//! The `knuffle-vd/1` transcript parser (`knuffle_draw::Transcript::parse`,
//! what `knuffle verify` reads): any text gives a transcript or an error
//! message, never a panic; a transcript it accepts has the format's name
//! and reads back unchanged from the JSON knuffle writes for it.
#![no_main]

use knuffle_draw::{FORMAT, Transcript};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // `knuffle verify` refuses bytes that are not UTF-8 before parsing.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Transcript::parse(text) {
        Ok(transcript) => {
            assert_eq!(transcript.format, FORMAT);
            let written = transcript.to_json();
            assert_eq!(
                Transcript::parse(&written).as_ref(),
                Ok(&transcript),
                "the transcript does not read back from {written}"
            );
        }
        Err(message) => assert!(!message.is_empty()),
    }
});
