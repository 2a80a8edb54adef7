//! The record shuffle of opened inputs, in GNU's order of operations: read
//! the input, open the random source, choose, open the output, write. The
//! plan (`plan.rs`) is made once, for the source of randomness at
//! hand; each strategy it names is executed by its own module.

use crate::error::Error;
use crate::external;
use crate::external_run;
use crate::in_memory;
use crate::input::{self, Opened};
use crate::options::Options;
use crate::output::OutputPlan;
use crate::plan::{Held, Plan, Run, Strategy};
use crate::progress::Progress;
use crate::randomness::{Draws, Randomness};
use crate::sample::{self, Sampler};
use crate::spill;

/// Shuffles opened inputs to `output` (`options.count` is not zero).
pub fn shuffle_opened(
    opened: Vec<Opened>,
    options: &Options,
    randomness: &mut Randomness,
    output: &OutputPlan<'_>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    progress.start(input::total_regular_size(&opened));
    let run = Run::new(options, output, progress);
    match randomness {
        Randomness::Gnu(source) => {
            let Plan { run, strategy } = run.plan_gnu(&opened)?;
            held(&run, strategy, opened, source)
        }
        Randomness::Knuffle(rng) => {
            let rng = rng.as_mut();
            let Plan { run, strategy } = run.plan_knuffle(&opened)?;
            match strategy {
                Strategy::Held(strategy) => held(&run, strategy, opened, rng),
                Strategy::External => {
                    let inputs = opened
                        .into_iter()
                        .map(|o| external::Input::reader(Box::new(o)))
                        .collect();
                    external_run::run(&run, inputs, rng)
                }
                Strategy::Spill { capacity } => spill::run(&run, opened, capacity, rng),
            }
        }
    }
}

/// Executes a strategy that holds its records in memory.
fn held<D: Draws + Sampler>(
    run: &Run<'_, '_>,
    strategy: Held,
    opened: Vec<Opened>,
    draws: &mut D,
) -> Result<(), Error> {
    match strategy {
        Held::Reservoir => sample::run(run, opened, draws),
        Held::Permute(holding) => in_memory::run(run, holding, opened, false, draws),
        Held::Repeat(holding) => in_memory::run(run, holding, opened, true, draws),
    }
}
