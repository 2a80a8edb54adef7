//! What the schema pass leaves for the rows pass, so that no input is read
//! twice for what is known already: the only input, opened (it may be a
//! pipe: it is read once), and the Parquet footers read for the schema,
//! kept while they fit their share of the memory limit (the plan's
//! `FooterShare`; the others are read again).

use arrow::datatypes::SchemaRef;

use crate::error::Error;
use crate::parquet_in::Footer;
use crate::source::{self, Opened, Reading, Source};

/// The inputs as the schema pass left them.
#[derive(Default)]
pub(crate) struct Opening {
    /// The first input, opened already (the only one).
    first: Option<Opened>,
    /// The footers kept, by the index of their input.
    footers: Vec<Option<Footer>>,
}

impl Opening {
    /// `first` (the only input, opened) and the `footers` kept.
    pub(crate) fn new(first: Option<Opened>, footers: Vec<Option<Footer>>) -> Opening {
        Opening { first, footers }
    }

    /// Input `index` (`source`) opened for its rows, each batch under
    /// `schema` (see `source::open`): the input opened already, else from
    /// its footer kept, else anew.
    pub(crate) fn open(
        &mut self,
        index: usize,
        source: &Source,
        schema: &SchemaRef,
        reading: Reading,
    ) -> Result<Opened, Error> {
        self.open_keeping(index, source, schema, reading, false)
    }

    /// [`Opening::open`] for a reading before the last (an exact split
    /// counts the rows before it reads them): a footer kept stays kept.
    pub(crate) fn open_before_last(
        &mut self,
        index: usize,
        source: &Source,
        schema: &SchemaRef,
        reading: Reading,
    ) -> Result<Opened, Error> {
        self.open_keeping(index, source, schema, reading, true)
    }

    fn open_keeping(
        &mut self,
        index: usize,
        source: &Source,
        schema: &SchemaRef,
        reading: Reading,
        keep: bool,
    ) -> Result<Opened, Error> {
        if index == 0
            && let Some(first) = self.first.take()
        {
            return Ok(first);
        }
        let kept = self.footers.get_mut(index);
        let footer = match kept {
            Some(kept) if keep => kept
                .as_ref()
                .map(|footer| footer.again(&source.path))
                .transpose()?,
            Some(kept) => kept.take(),
            None => None,
        };
        source::open_from(source, Some(schema.clone()), reading, footer)
    }
}
