//! `Generator`: one knuffle random stream (ChaCha20 keyed by SHA-256 of a
//! seed text, as the command line's `--seed`), and everything drawn from it.
//!
//! Every array shuffle puts `n` rows in the order `permutation(n)` gives
//! (elements of 1 to 8 bytes are shuffled in place as 8-byte-class words,
//! which `knuffle::shuffle` orders exactly like `usize`; wider rows follow a
//! permutation of 8-byte indices), so arrays of different element types
//! shuffled from equal generators stay aligned row by row.

use knuffle::cards::Deck;
use knuffle::{DefaultRng, Seed};
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use std::path::PathBuf;

use crate::files::FileJob;
use crate::threads::{self, DEFAULT_THREADS};
use crate::{rows, weighted};

/// A vector with room for `len` items, or `MemoryError` (never an abort).
pub fn reserve<T>(len: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {what} of {len} items")))?;
    Ok(v)
}

/// `0..n` as `T` (room reserved by the caller), then shuffled with `rng`
/// on `threads` threads: the order of `knuffle::permutation(n, rng)`. Run
/// with the GIL released.
fn fill_and_shuffle<T: TryFrom<usize> + Send>(
    mut v: Vec<T>,
    n: usize,
    rng: &mut DefaultRng,
    threads: usize,
) -> Result<Vec<T>, String> {
    v.extend((0..n).map(|i| T::try_from(i).ok().expect("n fits in the index type")));
    threads::shuffle_slice(&mut v, rng, threads)?;
    Ok(v)
}

fn runtime(message: String) -> PyErr {
    PyRuntimeError::new_err(message)
}

#[pyclass(module = "knuffle._knuffle", name = "Generator")]
pub struct Generator {
    rng: DefaultRng,
    seed: String,
    threads: usize,
}

impl Generator {
    /// The order `permutation(n)` gives, as `u64` indices (gil released).
    fn order(&mut self, py: Python<'_>, n: usize, threads: usize) -> PyResult<Vec<u64>> {
        let room = reserve::<u64>(n, "a permutation")?;
        let rng = &mut self.rng;
        py.detach(|| fill_and_shuffle(room, n, rng, threads))
            .map_err(runtime)
    }

    fn threads_or_default(&self, threads: Option<usize>) -> PyResult<usize> {
        match threads {
            Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
            Some(t) => Ok(t),
            None => Ok(self.threads),
        }
    }

    /// Shuffles a contiguous 1-D array of `T` in place.
    fn shuffle_typed<T: numpy::Element + Send>(
        &mut self,
        py: Python<'_>,
        array: &Bound<'_, PyArray1<T>>,
        threads: usize,
    ) -> PyResult<()> {
        let mut array: PyReadwriteArray1<'_, T> = array
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("cannot write to the array: {e}")))?;
        let slice = array
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("the array is not contiguous"))?;
        let rng = &mut self.rng;
        py.detach(|| threads::shuffle_slice(slice, rng, threads))
            .map_err(runtime)
    }
}

#[pymethods]
impl Generator {
    #[new]
    #[pyo3(signature = (seed=None, threads=DEFAULT_THREADS))]
    fn new(seed: Option<String>, threads: usize) -> PyResult<Self> {
        if threads == 0 {
            return Err(PyValueError::new_err("threads must be at least 1"));
        }
        let seed = seed.unwrap_or_else(Seed::random_text);
        Ok(Generator {
            rng: Seed::from_text(&seed).rng(),
            seed,
            threads,
        })
    }

    /// The seed text (for a generator seeded by the OS, 64 hex digits).
    #[getter]
    fn seed(&self) -> &str {
        &self.seed
    }

    /// The default thread count for large arrays.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// How far the stream has gone, in 32-bit words from its start: with the
    /// seed text, the generator's whole state (pickling and copies).
    #[getter]
    fn word_pos(&self) -> u128 {
        self.rng.word_pos()
    }

    /// Moves the stream to `word_pos` words from its start (the value
    /// `word_pos` read from a generator of the same seed).
    fn set_word_pos(&mut self, word_pos: u128) {
        self.rng.set_word_pos(word_pos);
    }

    /// Shuffles a contiguous 1-D array of 1-, 2-, 4- or 8-byte unsigned
    /// integers in place (any dtype viewed as such).
    #[pyo3(signature = (array, threads=None))]
    fn shuffle_words(
        &mut self,
        py: Python<'_>,
        array: &Bound<'_, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        let threads = self.threads_or_default(threads)?;
        if let Ok(a) = array.cast::<PyArray1<u64>>() {
            self.shuffle_typed(py, a, threads)
        } else if let Ok(a) = array.cast::<PyArray1<u32>>() {
            self.shuffle_typed(py, a, threads)
        } else if let Ok(a) = array.cast::<PyArray1<u16>>() {
            self.shuffle_typed(py, a, threads)
        } else if let Ok(a) = array.cast::<PyArray1<u8>>() {
            self.shuffle_typed(py, a, threads)
        } else {
            Err(PyTypeError::new_err(
                "shuffle_words takes a 1-D array of uint8, uint16, uint32 or uint64",
            ))
        }
    }

    /// Shuffles the rows of a C-contiguous 2-D uint8 array (rows of any
    /// width) in place, in the order `permutation(rows)` gives.
    #[pyo3(signature = (array, threads=None))]
    fn shuffle_rows(
        &mut self,
        py: Python<'_>,
        array: &Bound<'_, PyArray2<u8>>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        let threads = self.threads_or_default(threads)?;
        let mut array = array
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("cannot write to the array: {e}")))?;
        let shape = array.shape().to_vec();
        let (n, width) = (shape[0], shape[1]);
        let data = array
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("the array is not C-contiguous"))?;
        // Memory first, draws second: a MemoryError leaves the stream as it was.
        let copy = reserve::<u8>(data.len(), "a copy of the rows")?;
        let order = self.order(py, n, threads)?;
        py.detach(|| rows::gather(data, width, &order, copy, threads))
            .map_err(runtime)
    }

    /// A uniformly random permutation of `range(n)` as int64: the order
    /// Rust's `knuffle::permutation(n, rng)` gives for the same generator.
    #[pyo3(signature = (n, threads=None))]
    fn permutation_n<'py>(
        &mut self,
        py: Python<'py>,
        n: usize,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let threads = self.threads_or_default(threads)?;
        if i64::try_from(n).is_err() {
            return Err(PyValueError::new_err(format!(
                "n = {n} does not fit in int64"
            )));
        }
        let room = reserve::<i64>(n, "a permutation")?;
        let rng = &mut self.rng;
        let perm = py
            .detach(|| fill_and_shuffle(room, n, rng, threads))
            .map_err(runtime)?;
        Ok(PyArray1::from_vec(py, perm))
    }

    /// `k` distinct integers of `range(n)` in random order (Floyd), as uint64.
    fn sample_u64<'py>(
        &mut self,
        py: Python<'py>,
        n: u64,
        k: u64,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        if k > n {
            return Err(PyValueError::new_err(format!(
                "cannot choose k = {k} distinct values from range({n})"
            )));
        }
        let k = usize::try_from(k)
            .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {k} values")))?;
        // Floyd's set and the result: probe that both fit before drawing.
        drop(reserve::<[u64; 3]>(k, "a sample")?);
        let rng = &mut self.rng;
        let chosen = py.detach(|| knuffle::sample_indices(n, k, rng));
        Ok(PyArray1::from_vec(py, chosen))
    }

    /// `k` integers of `range(n)`, each drawn independently and uniformly
    /// (with replacement), as uint64.
    fn draws_u64<'py>(
        &mut self,
        py: Python<'py>,
        n: u64,
        k: usize,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        if n == 0 && k > 0 {
            return Err(PyValueError::new_err(
                "cannot draw from an empty population",
            ));
        }
        let mut drawn = reserve::<u64>(k, "a sample")?;
        let rng = &mut self.rng;
        py.detach(|| drawn.extend((0..k).map(|_| knuffle::below(n, rng))));
        Ok(PyArray1::from_vec(py, drawn))
    }

    /// `k` indices by weight, integer weights: distinct by successive
    /// sampling, or with `replace` independent draws.
    #[pyo3(signature = (weights, k, replace=false))]
    fn weighted_int<'py>(
        &mut self,
        py: Python<'py>,
        weights: PyReadonlyArray1<'py, u64>,
        k: usize,
        replace: bool,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let weights: Vec<u128> = weights.as_array().iter().map(|&w| u128::from(w)).collect();
        self.weighted(py, weights, k, replace)
    }

    /// `k` indices by weight, float weights (made exact integers by one
    /// power-of-two scale): distinct, or with `replace` independent draws.
    #[pyo3(signature = (weights, k, replace=false))]
    fn weighted_float<'py>(
        &mut self,
        py: Python<'py>,
        weights: PyReadonlyArray1<'py, f64>,
        k: usize,
        replace: bool,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let weights = weights.as_array().to_vec();
        if let Some(bad) = weights.iter().find(|w| !w.is_finite() || **w < 0.0) {
            return Err(PyValueError::new_err(format!(
                "weights must be finite and non-negative, got {bad}"
            )));
        }
        let weights = weighted::float_weights_to_integers(&weights);
        self.weighted(py, weights, k, replace)
    }

    /// The hands (and board) of `knuffle deal --players P --cards C --board B
    /// --decks D --jokers J`
    /// from this generator; card names as the CLI writes them.
    #[pyo3(signature = (players, cards, board, decks, jokers, ascii))]
    fn deal(
        &mut self,
        players: usize,
        cards: usize,
        board: usize,
        decks: usize,
        jokers: usize,
        ascii: bool,
    ) -> PyResult<(Vec<Vec<String>>, Vec<String>, usize)> {
        let deal = Deck::shoe(decks, jokers)
            .deal(players, cards, board, &mut self.rng)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let name = |card: &knuffle::cards::Card| {
            if ascii {
                card.to_ascii()
            } else {
                card.to_string()
            }
        };
        let hands = deal
            .hands
            .iter()
            .map(|hand| hand.iter().map(name).collect())
            .collect();
        let board = deal.board.iter().map(name).collect();
        Ok((hands, board, deal.rest.len()))
    }

    /// Shuffles a Python list in place (the order `permutation(len)` gives).
    fn shuffle_list(&mut self, py: Python<'_>, list: &Bound<'_, PyList>) -> PyResult<()> {
        let len = list.len();
        let mut items: Vec<Py<PyAny>> = reserve(len, "a list copy")?;
        items.extend(list.iter().map(Bound::unbind));
        let rng = &mut self.rng;
        // Size class of a pointer = of usize: the order of permutation(len).
        py.detach(|| knuffle::shuffle(&mut items, rng));
        if list.len() != len {
            return Err(PyRuntimeError::new_err(
                "the list changed size during the shuffle",
            ));
        }
        let shuffled = PyList::new(py, items)?;
        list.set_slice(0, len, shuffled.as_any())
    }

    /// Shuffles the lines (records) of files into `output`, exactly as
    /// `knuffle --seed SEED --memory M ...` does from a fresh generator:
    /// in memory, or through temporary files beyond the memory limit.
    /// `options`: one dict (see `FileJob::new`).
    fn shuffle_file_paths(
        &mut self,
        py: Python<'_>,
        inputs: Vec<PathBuf>,
        output: PathBuf,
        options: Bound<'_, PyDict>,
    ) -> PyResult<()> {
        FileJob::new(inputs, output, &options)?.run(py, &mut self.rng)
    }

    fn __repr__(&self) -> String {
        format!("knuffle.Generator({:?})", self.seed)
    }
}

impl Generator {
    fn weighted<'py>(
        &mut self,
        py: Python<'py>,
        weights: Vec<u128>,
        k: usize,
        replace: bool,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let positive = weights.iter().filter(|&&w| w > 0).count();
        if replace && k > 0 && positive == 0 {
            return Err(PyValueError::new_err(
                "cannot draw: no item has a positive weight",
            ));
        }
        if !replace && k > positive {
            return Err(PyValueError::new_err(format!(
                "cannot choose k = {k} distinct items: only {positive} have a positive weight"
            )));
        }
        let total = weights.iter().try_fold(0u128, |sum, &w| sum.checked_add(w));
        if total.is_none() {
            return Err(PyValueError::new_err(
                "the weights add up to 2**128 or more",
            ));
        }
        if replace {
            drop(reserve::<u64>(k, "a sample")?);
        }
        let rng = &mut self.rng;
        let chosen = py.detach(|| {
            if replace {
                weighted::draws(&weights, k, rng)
            } else {
                weighted::sample(&weights, k, rng)
            }
        });
        Ok(PyArray1::from_vec(
            py,
            chosen.into_iter().map(|i| i as i64).collect(),
        ))
    }
}
