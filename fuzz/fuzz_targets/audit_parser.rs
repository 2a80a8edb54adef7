//! The audit's input parser (`knuffle_lab::audit::audit_text`): any bytes
//! give a report or an error, never a panic, and a report's counts match
//! the lines read.
#![no_main]

use knuffle_lab::audit::{AuditOptions, audit_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the options; the rest is the input.
    let Some((&choice, input)) = data.split_first() else {
        return;
    };
    let options = AuditOptions {
        base: match choice & 3 {
            0 => None,
            1 => Some(0),
            _ => Some(1),
        },
        n: (choice & 4 != 0).then_some(usize::from(choice >> 3) + 2),
        ..AuditOptions::default()
    };
    if let Ok(report) = audit_text(input, &options) {
        assert!(report.k <= report.n && report.n >= 2);
        // Every line is either a shuffle or a blank line.
        let newlines = input.iter().filter(|&&b| b == b'\n').count();
        let lines = newlines + usize::from(input.last().is_some_and(|&b| b != b'\n'));
        assert_eq!(report.analysis.trials + report.blank_lines, lines as u64);
        let _ = report.to_text();
    }
});
