//! What a shuffle reports while it runs: a caller draws a progress bar or
//! prints a warning from these calls; the library itself prints nothing.

/// Receives progress reports. Every method has an empty default, so an
/// observer implements only what it shows. Calls come from the thread that
/// called [`shuffle_records`](crate::shuffle_records) and from its worker
/// threads, hence `Sync`.
pub trait Progress: Sync {
    /// The run starts; `total_bytes` is the input's size when known.
    fn start(&self, total_bytes: Option<u64>) {
        let _ = total_bytes;
    }

    /// `bytes` more input bytes were read.
    fn read(&self, bytes: u64) {
        let _ = bytes;
    }

    /// `bytes` more output bytes were written.
    fn wrote(&self, bytes: u64) {
        let _ = bytes;
    }

    /// `records` records (header lines not counted) are about to be put in
    /// random order, before any random draw (the `knuffle` command warns
    /// here when its seed is too short for that many).
    fn permuting(&self, records: u64) {
        let _ = records;
    }

    /// The run is over, successfully or not.
    fn finish(&self) {}
}

/// Reports nowhere.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
