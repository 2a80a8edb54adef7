//! `Generator`: one seeded knuffle stream (`knuffle::DefaultRng`).

use knuffle::{DefaultRng, Seed};
use numpy::{PyArray1, PyReadwriteArray1};
use pyo3::prelude::*;

#[pyclass(module = "knuffle._knuffle")]
pub struct Generator {
    rng: DefaultRng,
}

#[pymethods]
impl Generator {
    #[new]
    #[pyo3(signature = (seed=None))]
    fn new(seed: Option<&str>) -> Self {
        let rng = match seed {
            Some(text) => Seed::from_text(text).rng(),
            None => DefaultRng::from_os(),
        };
        Generator { rng }
    }

    fn shuffle_i64(&mut self, py: Python<'_>, mut a: PyReadwriteArray1<'_, i64>) -> PyResult<()> {
        let slice = a.as_slice_mut()?;
        let rng = &mut self.rng;
        py.detach(|| knuffle::shuffle(slice, rng));
        Ok(())
    }

    fn permutation_n<'py>(&mut self, py: Python<'py>, n: usize) -> Bound<'py, PyArray1<i64>> {
        let rng = &mut self.rng;
        let perm: Vec<i64> = py.detach(|| {
            knuffle::permutation(n, rng).into_iter().map(|i| i as i64).collect()
        });
        PyArray1::from_vec(py, perm)
    }
}
