//! The record shuffle of [`Input`]s, in GNU's order of operations: read
//! the input, open the random source, choose, open the output, write.
//! This module opens the inputs (`-e` words and `-i` ranges go to
//! `operands`, which reads nothing) and hands them over to `plan`, which
//! decides once and executes the strategy chosen; nothing comes back here
//! but the result.

use crate::error::Error;
use crate::input::{self, Input, Opened};
use crate::operands;
use crate::options::{HeadCount, Options};
use crate::output::OutputPlan;
use crate::plan;
use crate::progress::Progress;
use crate::randomness::Randomness;

/// Shuffles the records of `inputs` to `output`: `-n 0` reads nothing and
/// only creates the output (GNU's way), a lone `-e`/`-i` input is shuffled by `operands`, and
/// anything else is opened (one input now, several each when reached)
/// and handed to [`plan::execute`], with `progress` told the total size
/// first and the end last.
pub(crate) fn shuffle(
    inputs: impl IntoIterator<Item = Input>,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    if options.count == HeadCount::AtMost(0) {
        // GNU reads no input, opens the random source only for -r, and
        // still creates (truncates) the output file.
        randomness.open_if(options.repeat)?;
        return output.open()?.finish();
    }
    let mut inputs: Vec<Input> = inputs.into_iter().collect();
    if let [Input::Words(_) | Input::Range { .. }] = inputs.as_slice()
        && let Some(operand) = inputs.pop()
    {
        return operands::shuffle(operand, options, randomness, output, progress);
    }
    let opened: Vec<Opened> = if inputs.len() == 1 {
        inputs
            .into_iter()
            .map(Input::open)
            .collect::<Result<_, _>>()?
    } else {
        inputs
            .into_iter()
            .map(Input::open_later)
            .collect::<Result<_, _>>()?
    };
    progress.start(input::total_regular_size(&opened));
    let result = plan::execute(opened, options, randomness, output, progress);
    progress.finish();
    result
}
