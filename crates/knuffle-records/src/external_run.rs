//! The external strategy as the plan (`plan.rs`) runs it: the shuffle's settings from
//! the run's, and its output opened on the first write.

use std::io::{self, Write};

use knuffle::DefaultRng;

use crate::error::Error;
use crate::external::{ExternalConfig, Input, shuffle_external, temp_dir};
use crate::output::{Output, OutputPlan};
use crate::settings::Run;

/// Shuffles `inputs` externally to the run's output (opened when the
/// first byte is written).
pub(crate) fn run(
    run: &Run<'_, '_>,
    inputs: Vec<Input>,
    rng: &mut DefaultRng,
) -> Result<(), Error> {
    let options = run.options;
    let config = ExternalConfig {
        memory: run.limit,
        temp_dir: temp_dir(options.temp_dir.as_deref()),
        delimiter: options.delimiter,
        header: options.header,
        count: options.count,
    };
    let mut out = LazyOutput {
        plan: run.output,
        output: None,
        failed: None,
    };
    let result = shuffle_external(inputs, &config, rng, &mut out, run.progress);
    if let Some(error) = out.failed.take() {
        return Err(error);
    }
    let stats = result?;
    run.progress.permuting(stats.records);
    out.get().map_err(Error::Write)?;
    out.output.take().expect("opened").finish()
}

/// The output, opened on its first write (after the input was read, as
/// GNU does: `-o FILE` may name an input).
struct LazyOutput<'p, 'o> {
    plan: &'p OutputPlan<'o>,
    output: Option<Output<'o>>,
    failed: Option<Error>,
}

impl LazyOutput<'_, '_> {
    fn get(&mut self) -> io::Result<&mut dyn Write> {
        if self.output.is_none() {
            match self.plan.open() {
                Ok(output) => self.output = Some(output),
                Err(error) => {
                    let text = error.to_string();
                    self.failed = Some(error);
                    return Err(io::Error::other(text));
                }
            }
        }
        // The external shuffle reports what it writes itself.
        Ok(self.output.as_mut().expect("opened").raw_writer())
    }
}

impl Write for LazyOutput<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.get()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.get()?.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.output {
            Some(output) => output.writer().flush(),
            None => Ok(()),
        }
    }
}
