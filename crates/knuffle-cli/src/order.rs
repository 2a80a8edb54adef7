//! `knuffle order`: the row numbers of an epoch order
//! (`knuffle_table::EpochOrder`, docs/table-order.md "Epochs"), one a
//! line, for shell users and programs in other languages; a range of
//! positions and one consumer's share of it.

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;
use knuffle_table::EpochOrder;

use crate::emit;
use crate::failure::CliError;

const ABOUT: &str = "Print the row numbers of an epoch's order, one a line";

const LONG_ABOUT: &str = "\
Print the order of the rows 0..N-1 in epoch E of the seed TEXT: the row number at each
position, one a line. Every one of the N! orders is exactly equally likely, and epoch E is
the table order of the seed text \"knuffle epoch E: TEXT\" (epoch 0: TEXT itself), so epoch
0 is the order `knuffle table --seed TEXT` gives a table of N rows, and knuffle.epoch_order
gives the same rows in Python. Nothing holds N row numbers: the order is computed a window
of label ranges at a time, whatever N is (at most 2^32).

Positions: --from P --count C selects the positions P, P+1, ..., P+C-1 (default: from 0 to
the end; P+C must not pass N). --rank r --world-size R then prints the positions P+r,
P+r+R, P+r+2R, ... of that range: consumer r of R gets every R-th row, as torch's
DistributedSampler slices indices[rank::num_replicas], so the R outputs merged by position
are the range itself, whatever R is. Ranks get ceil or floor of C/R rows: padding and
drop_last are the samplers' rules (knuffle.torch), not this command's.";

const EXAMPLES: &str = "\
Examples:
  knuffle order -n 10 --seed friday                  the 10 rows of epoch 0
  knuffle order -n 1000000 --seed friday --epoch 3 --from 500 --count 20
  knuffle order -n 100 --seed friday --rank 1 --world-size 4    rows at positions 1, 5, 9, ...

Exit status: 0 success; 1 a write error; 2 invalid arguments.";

#[derive(Parser, Debug)]
#[command(
    name = "knuffle order",
    bin_name = "knuffle order",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    disable_version_flag = true
)]
pub(crate) struct Args {
    /// The number of rows N (at most 2^32).
    #[arg(
        short = 'n',
        long = "rows",
        value_name = "N",
        required = true,
        allow_negative_numbers = true
    )]
    rows: u64,

    /// Seed text (any text); the same seed, epoch and N give the same order.
    #[arg(long, value_name = "TEXT", required = true)]
    seed: String,

    /// The epoch (0 to 2^64-1): each epoch has its own independent order.
    #[arg(
        long,
        value_name = "EPOCH",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    epoch: u64,

    /// The first position P of the range (0 to N).
    #[arg(
        long,
        value_name = "POSITION",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    from: u64,

    /// How many positions C the range has from P (default: to the end).
    #[arg(long, value_name = "COUNT", allow_negative_numbers = true)]
    count: Option<u64>,

    /// This consumer's number r, 0 to R-1: the positions P+r, P+r+R, ... of the range.
    #[arg(
        long,
        value_name = "RANK",
        requires = "world_size",
        allow_negative_numbers = true
    )]
    rank: Option<u64>,

    /// The number of consumers R (at least 1), with --rank.
    #[arg(
        long,
        value_name = "RANKS",
        requires = "rank",
        allow_negative_numbers = true
    )]
    world_size: Option<u64>,
}

/// The positions to print: `first`, `first + step`, ... (`count` of them).
struct Selection {
    first: u64,
    step: u64,
    count: u64,
}

impl Args {
    /// The positions, checked against N.
    fn selection(&self) -> Result<Selection, CliError> {
        let n = self.rows;
        if self.from > n {
            return Err(CliError::invalid(format!(
                "--from {} is past the end of the order ({n} rows)",
                self.from
            )));
        }
        let count = self.count.unwrap_or(n - self.from);
        if count > n - self.from {
            return Err(CliError::invalid(format!(
                "--from {} --count {count} passes the end of the order ({n} rows)",
                self.from
            )));
        }
        let (rank, world) = (self.rank.unwrap_or(0), self.world_size.unwrap_or(1));
        if world == 0 {
            return Err(CliError::invalid("--world-size must be at least 1"));
        }
        if rank >= world {
            return Err(CliError::invalid(format!(
                "--rank {rank} is not below --world-size {world} (ranks are 0 to {})",
                world - 1
            )));
        }
        Ok(Selection {
            // Saturating: a rank past the range selects nothing.
            first: self.from.saturating_add(rank),
            step: world,
            count: count.saturating_sub(rank).div_ceil(world),
        })
    }
}

/// Runs `knuffle order` with the arguments after `order`.
pub fn run(args: &[OsString]) -> Result<ExitCode, CliError> {
    let args: Args = emit::parse("knuffle order", args)?;
    let order = EpochOrder::new(&args.seed, args.epoch, args.rows)
        .map_err(|e| CliError::invalid(format!("-n: {e}")))?;
    let selection = args.selection()?;
    emit::end_quietly_on_closed_pipe();
    match print(&order, &selection) {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe || emit::parent_ignored_sigpipe() => {
            Err(CliError::write(&err))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Prints the selected rows, one a line, through a large buffer.
fn print(order: &EpochOrder, selection: &Selection) -> io::Result<()> {
    const BATCH: usize = 1 << 16;
    let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let mut text = Vec::with_capacity(BATCH * 11);
    let mut rows = vec![0u64; BATCH];
    let mut cursor = order.cursor(selection.first.min(order.len()));
    let mut left = selection.count;
    let mut position = selection.first;
    while left > 0 {
        let take = left.min(BATCH as u64) as usize;
        if selection.step == 1 {
            cursor.fill(&mut rows[..take]);
        } else {
            for row in &mut rows[..take] {
                cursor.seek(position);
                *row = cursor.next().expect("the selection ends before n");
                position = position.saturating_add(selection.step);
            }
        }
        text.clear();
        for &row in &rows[..take] {
            push_line(&mut text, row);
        }
        out.write_all(&text)?;
        left -= take as u64;
    }
    out.flush()
}

/// Appends `row` in decimal and a newline.
fn push_line(text: &mut Vec<u8>, mut row: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (row % 10) as u8;
        row /= 10;
        if row == 0 {
            break;
        }
    }
    text.extend_from_slice(&digits[at..]);
    text.push(b'\n');
}
