//! The integration tests of the `knuffle` binary: one test binary, one
//! module per area, all running the real binary (`CARGO_BIN_EXE_knuffle`) on
//! real files through [`support::TestCommand`].
//!
//! | module | what it checks |
//! | --- | --- |
//! | `shuf_gnu_suite` | the cases of GNU coreutils' own `shuf.sh` |
//! | `shuf_vs_gnu`, `shuf_differential` | byte-for-byte agreement with the installed GNU shuf (fixed and random command lines) |
//! | `shuf_behaviour` | shuf mode beyond GNU's tests: any bytes, huge lines, `-o` safety, several FILEs |
//! | `external_permutation`, `external_memory`, `external_faults` | inputs larger than `--memory`: permutation, peak memory, faults and signals |
//! | `resources` | hostile inputs under time limits, with peak memory asserted |
//! | `extreme_values` | every numeric option of every subcommand with extreme values under `ulimit -v`: a clear end, never a panic or an abort |
//! | `memory_limits` | hostile surroundings: a 2 GiB line under `ulimit -v`, a directory as input, SIGPIPE ignored by the parent |
//! | `one_order` | the README's rule: `knuffle sample` with no mode is the table order (`knuffle table`'s), in memory or through temporary files; shuf mode is the Fisher-Yates order |
//! | `hostile_numbers` | `draw`, `verify` and `audit` with counts, sizes and ranges that imply unbounded work, under `ulimit -v`: a defined status and a clear message; endless draws stream |
//! | `mapped_input` | a single FILE read from the page cache: same order, `-o` onto itself, shrinking under the map |
//! | `records_library` | `knuffle_records` writes exactly what the binary writes |
//! | `closed_pipes` | a reader that goes away ends every subcommand quietly |
//! | `cli_conventions` | `help`, `-h`, `--version`, typos of subcommands, man page and completions |
//! | `deal`, `chars`, `trace`, `lab_cli`, `audit_cli`, `draw_verify` | the subcommands, with golden outputs |
//! | `audit_order_cli` | `knuffle audit --order`: exact shuffles pass, buffer, block and round-robin shuffles and a repeated epoch are flagged with their causes, exit statuses and messages |
//! | `cited_paths` | every file path the documents and the code cite exists in the repository |
//! | `shared_build` | the Python extension's test build can share the workspace's compiled libraries (same locked versions, same dev profile) |
//! | `documents` | every shell example of README.md and `docs/guide/` runs as written; their relative links name existing files |
//! | `sample` | `knuffle sample`: each mode's law against exact values (with biased stand-ins that fail), headers, CSV, endless input, errors |
//! | `split_tables` | `knuffle split` on tables: exact and group splits put every row where the line split puts the same CSV record; types kept, every row once; the exact law by chi-square (a cut fails); refusals and failures leave no part |
//! | `sample_tables` | `knuffle sample` on tables: every mode chooses the rows the line mode chooses on the CSV of the same rows; weighted, stratified and Bernoulli laws by chi-square (stand-ins of the wrong law fail); types kept; bad weights, unknown columns, line-only options refused |
//! | `sample_external` | `knuffle sample` beyond `--memory`: the same output for every limit, peak memory, no temporary file or partial output left by a failing or killed run |
//! | `split` | `knuffle split`: exact part sizes, every record in one part, a uniform assignment (chi-square; a biased stand-in fails), group splits across runs and files, headers, CSV, errors |
//! | `order` | `knuffle order`: the reference order of each epoch, ranges, every split into ranks merging back, bad arguments |
//! | `table` | `knuffle table`: exit statuses and messages, nothing left by a failure or SIGKILL, peak memory ten times under the table's size, the reference order, uniformity through `knuffle audit` (a biased stand-in fails) |
//! | `compressed` | gzip and zstd files read by content by `table`, `sample` and `split` (the plain input's order for the same seed), table outputs compressed by extension, truncated or corrupt streams an error leaving no output, bzip2/xz/compressed Parquet refused |
//! | `table_hostile` | `knuffle table` (and `sample`/`split --csv`) on hostile tables under `ulimit -v`: crafted footers, flipped bytes, wide tables, long cells, unclosed quotes, FIFOs: exit 0 with every row or exit 2 naming the file, bounded memory, never a panic |
//! | `table_inputs` | `knuffle table` on several files: Hive partition directories as columns (in the order of the same rows in one flat file), columns matched by name and promoted without loss, inconsistent inputs and an output extension of no table format refused (exit 2) |
//! | `table_types` | `knuffle table --infer-types`: CSV columns typed only when every value comes back as written (CSV -> Parquet -> CSV the same bytes); JSON Lines errors naming the line of the whole file, plain and gzip, and a type conflict's field and types |
//! | `table_partitions` | `knuffle table --partition-by`: Hive directories escaped as pyarrow writes them, each value's rows in the unpartitioned order (across files when few may be open), read back by knuffle's Hive reader; mistakes refused leaving nothing |
//! | `table_parts` | `knuffle table --parts`: a table split into files, in the table order, of exact sizes; mistakes refused before anything is written |
//! | `verifier_differential` | `knuffle verify` and the Python reference verifier: the same exit status on a corpus of hostile transcripts |
//! | `written_files` | every file knuffle writes (transcripts, secrets, the lab's report, `-o`) by one rule: FIFOs, devices, symlinks, hard links, missing directories |
//!
//! Tests that measure a child's peak memory or run near a time limit take
//! [`support::heavy`] first, so that they never run at the same time as
//! each other on a small machine.

mod support;

mod audit_cli;
mod audit_order_cli;
mod chars;
mod cited_paths;
mod cli_conventions;
mod closed_pipes;
mod compressed;
mod deal;
mod documents;
mod draw_verify;
mod external_faults;
mod external_memory;
mod external_permutation;
mod extreme_values;
mod hostile_numbers;
mod lab_cli;
mod mapped_input;
mod memory_limits;
mod one_order;
mod order;
mod records_library;
mod resources;
mod sample;
mod sample_external;
mod sample_tables;
mod shared_build;
mod shuf_behaviour;
mod shuf_differential;
mod shuf_gnu_suite;
mod shuf_vs_gnu;
mod split;
mod split_tables;
mod table;
mod table_hostile;
mod table_inputs;
mod table_partitions;
mod table_parts;
mod table_types;
mod trace;
mod verifier_differential;
mod written_files;
