//! Draws 3 lines uniformly from standard input with a reservoir (constant
//! memory, any input length), keeping a header line on top.
//!
//! ```text
//! seq 1000000 | cargo run -p knuffle-records --example sample_reader
//! ```

use knuffle_records::{HeadCount, Input, Options, Randomness, shuffle_records};

fn main() -> Result<(), knuffle_records::Error> {
    let options = Options {
        count: HeadCount::AtMost(3),
        header: 1,
        ..Options::default()
    };
    let mut randomness = Randomness::from_os()?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    shuffle_records([Input::Stdin], &options, &mut randomness, &mut out)
}
