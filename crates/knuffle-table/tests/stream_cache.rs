//! `TableStream` with a cache directory: the streams of one machine share
//! one pass 1 per epoch (the first writes it, the others read it), their
//! rows are still the epoch order; a killed writer's leftovers, a damaged
//! entry and changed inputs are detected and redone; older epochs are
//! removed at the end of an epoch unless a stream holds them; the next
//! epoch's pass 1 in the background gives the rows of a cold run; a
//! corrupt input leaves no entry and gives no row.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::*;
use arrow::datatypes::*;
use arrow::record_batch::RecordBatch;
use knuffle_table::{
    Consumer, ErrorKind, Pass1, Prefetch, StreamOptions, TableStream, epoch_seed, prefetch_stream,
    table_order,
};
use parquet::arrow::ArrowWriter;

fn options(seed: &str, epoch: u64, cache: &Path) -> StreamOptions {
    StreamOptions {
        seed: seed.into(),
        epoch,
        columns: None,
        batch_rows: 500,
        memory: 4 << 20,
        temp_dir: None,
        cache_dir: Some(cache.to_path_buf()),
        prefetch: false,
        format: None,
        consumer: Consumer::ALL,
    }
}

/// `n` rows: an id (the row number), a text of 1-90 bytes, a list of
/// floats.
fn rows(n: usize) -> RecordBatch {
    let id = Int64Array::from_iter_values(0..n as i64);
    let text = StringArray::from_iter_values((0..n).map(|i| format!("{i}:{}", "t".repeat(i % 90))));
    let mut lists = ListBuilder::new(Float32Builder::new());
    for i in 0..n {
        for k in 0..(i % 3) {
            lists.values().append_value((i * 10 + k) as f32);
        }
        lists.append(true);
    }
    let lists = lists.finish();
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("text", DataType::Utf8, false),
        Field::new("feature", lists.data_type().clone(), true),
    ]);
    RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(id), Arc::new(text), Arc::new(lists)],
    )
    .unwrap()
}

fn write_parquet(path: &Path, batch: &RecordBatch) {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(3000))
        .build();
    let mut writer =
        ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

/// A directory of three Parquet shards of `n` rows in all.
fn shards(dir: &Path, n: usize) -> PathBuf {
    let table = rows(n);
    let shards = dir.join("shards");
    fs::create_dir_all(&shards).unwrap();
    let cuts = [0, n / 3, n / 3 + 1, n];
    for (i, w) in cuts.windows(2).enumerate() {
        write_parquet(
            &shards.join(format!("part-{i}.parquet")),
            &table.slice(w[0], w[1] - w[0]),
        );
    }
    shards
}

fn ids(batches: &[RecordBatch]) -> Vec<u64> {
    let mut out = Vec::new();
    for batch in batches {
        // A CSV's ids may be read as another integer type.
        let column =
            arrow::compute::cast(batch.column_by_name("id").unwrap(), &DataType::Int64).unwrap();
        let column = column.as_any().downcast_ref::<Int64Array>().unwrap();
        out.extend(column.values().iter().map(|&v| v as u64));
    }
    out
}

/// The ids of the epoch order of (`seed`, `epoch`) over `n` rows.
fn expected(seed: &str, epoch: u64, n: usize) -> Vec<u64> {
    table_order(&epoch_seed(seed, epoch), n as u64)
}

/// Every row of a stream, and what the stream did.
fn run(input: &Path, options: &StreamOptions) -> (Vec<u64>, knuffle_table::StreamStats) {
    let mut stream = TableStream::open(&[input.to_path_buf()], options).unwrap();
    let mut batches = Vec::new();
    for batch in stream.by_ref() {
        batches.push(batch.unwrap());
    }
    (ids(&batches), stream.stats())
}

/// The files of the cache (relative names, sorted), at any depth.
fn files(cache: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for dataset in fs::read_dir(cache).unwrap() {
        let dataset = dataset.unwrap().path();
        for file in fs::read_dir(&dataset).unwrap() {
            let name = file.unwrap().file_name().into_string().unwrap();
            let dir = dataset.file_name().unwrap().to_str().unwrap().to_owned();
            out.push(format!("{dir}/{name}"));
        }
    }
    out.sort();
    out
}

/// The files of the cache named `epoch-E.<suffix>`, by their suffix.
fn entry_files(cache: &Path, epoch: u64) -> Vec<String> {
    let prefix = format!("epoch-{epoch}.");
    files(cache)
        .into_iter()
        .filter_map(|f| f.split('/').nth(1).map(str::to_owned))
        .filter_map(|name| name.strip_prefix(&prefix).map(str::to_owned))
        .collect()
}

fn path_of(cache: &Path, epoch: u64, suffix: &str) -> PathBuf {
    let dataset = fs::read_dir(cache).unwrap().next().unwrap().unwrap().path();
    dataset.join(format!("epoch-{epoch}.{suffix}"))
}

#[test]
fn streams_share_one_pass_1_and_each_reads_its_own_positions() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000;
    let input = shards(dir.path(), n);
    let cache = dir.path().join("cache");
    let order = expected("shared", 3, n);
    // Four consumers at once (each lock is taken on a file opened on its
    // own, so streams of one process exclude each other as processes do).
    let results: Vec<(Vec<u64>, knuffle_table::StreamStats)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4u64)
            .map(|index| {
                let mut options = options("shared", 3, &cache);
                options.consumer = Consumer {
                    index,
                    count: 4,
                    start: 0,
                };
                let input = input.clone();
                scope.spawn(move || run(&input, &options))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let wrote = results
        .iter()
        .filter(|(_, s)| s.pass1 == Some(Pass1::Wrote))
        .count();
    assert_eq!(wrote, 1, "exactly one stream reads the inputs");
    for (index, (got, stats)) in results.iter().enumerate() {
        let mine: Vec<u64> = order.iter().skip(index).step_by(4).copied().collect();
        assert_eq!(got, &mine, "consumer {index}");
        assert_eq!(stats.writer_pid, Some(std::process::id()));
        assert!(stats.bucket_bytes > 0);
        assert!(!stats.written_in_background);
    }
    assert_eq!(entry_files(&cache, 3), ["buckets", "lock", "manifest"]);
    // Later streams of the epoch read it (and a resumed one its rest).
    let mut later = options("shared", 3, &cache);
    later.consumer = Consumer {
        index: 1,
        count: 2,
        start: 12_345,
    };
    let (got, stats) = run(&input, &later);
    assert_eq!(stats.pass1, Some(Pass1::Reused));
    assert!(!stats.waited);
    let rest: Vec<u64> = order[12_346..].iter().step_by(2).copied().collect();
    assert_eq!(got, rest);
    // With less memory than the writer had: buckets split again on the
    // way, the same rows.
    let mut small = options("shared", 3, &cache);
    small.memory = 1 << 20;
    assert_eq!(run(&input, &small).0, order);
    // Other columns, another seed: entries of their own, each replacing
    // the earlier copies of these inputs when its epoch ends (the file
    // times of the entries must differ).
    let mut columns = options("shared", 3, &cache);
    columns.columns = Some(vec!["text".into(), "id".into()]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (got, stats) = run(&input, &columns);
    assert_eq!((got, stats.pass1), (order.clone(), Some(Pass1::Wrote)));
    assert_eq!(stats.removed, 1);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (got, stats) = run(&input, &options("other", 3, &cache));
    assert_eq!(
        (got, stats.pass1, stats.removed),
        (expected("other", 3, n), Some(Pass1::Wrote), 1)
    );
    assert_eq!(fs::read_dir(&cache).unwrap().count(), 1);
}

#[test]
fn a_killed_writer_or_a_damaged_entry_is_redone() {
    let dir = tempfile::tempdir().unwrap();
    let n = 12_000;
    let input = shards(dir.path(), n);
    let cache = dir.path().join("cache");
    let order = expected("killed", 1, n);
    let (got, stats) = run(&input, &options("killed", 1, &cache));
    assert_eq!((got, stats.pass1), (order.clone(), Some(Pass1::Wrote)));
    // A writer killed in pass 1 leaves a partial bucket file and no
    // manifest (the kernel released its lock).
    let buckets = path_of(&cache, 1, "buckets");
    let bytes = fs::read(&buckets).unwrap();
    fs::remove_file(path_of(&cache, 1, "manifest")).unwrap();
    fs::rename(&buckets, path_of(&cache, 1, "buckets.partial")).unwrap();
    let (got, stats) = run(&input, &options("killed", 1, &cache));
    assert_eq!((got, stats.pass1), (order.clone(), Some(Pass1::Wrote)));
    assert_eq!(entry_files(&cache, 1), ["buckets", "lock", "manifest"]);
    // A bucket file cut short under a complete manifest.
    fs::write(&buckets, &bytes[..bytes.len() / 2]).unwrap();
    let (got, stats) = run(&input, &options("killed", 1, &cache));
    assert_eq!((got, stats.pass1), (order.clone(), Some(Pass1::Wrote)));
    // A manifest that is not one.
    fs::write(path_of(&cache, 1, "manifest"), "{\"identity\": 7").unwrap();
    let (got, stats) = run(&input, &options("killed", 1, &cache));
    assert_eq!((got, stats.pass1), (order.clone(), Some(Pass1::Wrote)));
    // A stream of another dataset that opens the cache removes a killed
    // writer's entry of this one (nobody holds it).
    fs::remove_file(path_of(&cache, 1, "manifest")).unwrap();
    let other = dir.path().join("other.parquet");
    write_parquet(&other, &rows(100));
    let (_, stats) = run(&other, &options("killed", 0, &cache));
    assert_eq!(stats.removed, 1);
    assert_eq!(entry_files(&cache, 1), Vec::<String>::new());
}

#[test]
fn changed_inputs_make_a_new_entry_and_the_old_one_goes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.parquet");
    write_parquet(&input, &rows(5000));
    let cache = dir.path().join("cache");
    let (_, stats) = run(&input, &options("changed", 0, &cache));
    assert_eq!(stats.pass1, Some(Pass1::Wrote));
    let before = files(&cache);
    write_parquet(&input, &rows(6000));
    let (got, stats) = run(&input, &options("changed", 0, &cache));
    assert_eq!(got, expected("changed", 0, 6000));
    assert_eq!(stats.pass1, Some(Pass1::Wrote));
    assert_eq!(stats.removed, 1, "the entry of the old file");
    let after = files(&cache);
    assert_eq!(after.len(), 3);
    assert!(after.iter().all(|f| !before.contains(f)), "{after:?}");
}

#[test]
fn older_epochs_go_at_the_end_of_an_epoch_unless_a_stream_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    let n = 8000;
    let input = shards(dir.path(), n);
    let cache = dir.path().join("cache");
    for epoch in 0..2 {
        let (got, _) = run(&input, &options("older", epoch, &cache));
        assert_eq!(got, expected("older", epoch, n));
    }
    // Epoch 1's end removed epoch 0.
    assert!(entry_files(&cache, 0).is_empty());
    assert_eq!(entry_files(&cache, 1).len(), 3);
    // A stream still reading epoch 1 keeps it when epoch 2 ends.
    let mut reading =
        TableStream::open(std::slice::from_ref(&input), &options("older", 1, &cache)).unwrap();
    let first = reading.next().unwrap().unwrap();
    let (_, stats) = run(&input, &options("older", 2, &cache));
    assert_eq!(stats.removed, 0);
    assert_eq!(entry_files(&cache, 1).len(), 3);
    let mut got = ids(&[first]);
    for batch in reading.by_ref() {
        got.extend(ids(&[batch.unwrap()]));
    }
    assert_eq!(got, expected("older", 1, n));
    drop(reading);
    // Epoch 3's end removes it (and epoch 2).
    let (_, stats) = run(&input, &options("older", 3, &cache));
    assert_eq!(stats.removed, 2);
    assert!(entry_files(&cache, 1).is_empty() && entry_files(&cache, 2).is_empty());
}

#[test]
fn the_next_epoch_in_the_background_is_the_order_of_a_cold_run() {
    let dir = tempfile::tempdir().unwrap();
    let n = 15_000;
    let input = shards(dir.path(), n);
    let cache = dir.path().join("cache");
    let mut first = options("ahead", 4, &cache);
    first.prefetch = true;
    let (got, stats) = run(&input, &first);
    assert_eq!(got, expected("ahead", 4, n));
    assert_eq!(stats.pass1, Some(Pass1::Wrote));
    // Claimed before the stream's first batch: running or done by now.
    assert!(
        matches!(stats.prefetch, Prefetch::Running | Prefetch::Done),
        "{:?}",
        stats.prefetch
    );
    // Epoch 5 waits for it if need be, and reads it.
    let mut next = options("ahead", 5, &cache);
    next.prefetch = true;
    let (got, stats) = run(&input, &next);
    assert_eq!(stats.pass1, Some(Pass1::Reused));
    assert!(stats.written_in_background);
    // The rows of a stream without any cache (a cold run).
    let mut cold = options("ahead", 5, &cache);
    cold.cache_dir = None;
    let (cold_ids, cold_stats) = run(&input, &cold);
    assert_eq!(cold_stats.pass1, Some(Pass1::Private));
    assert_eq!(got, cold_ids);
    assert_eq!(got, expected("ahead", 5, n));
    // Epoch 5's stream claimed epoch 6 in turn, and epoch 5's end removed
    // epoch 4.
    assert!(entry_files(&cache, 4).is_empty());
    let mut waited = options("ahead", 6, &cache);
    waited.prefetch = false;
    let (got, stats) = run(&input, &waited);
    assert_eq!(got, expected("ahead", 6, n));
    assert_eq!(stats.pass1, Some(Pass1::Reused));
}

#[test]
fn prefetch_stream_writes_the_epoch_then_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let n = 9000;
    let input = shards(dir.path(), n);
    let cache = dir.path().join("cache");
    let mut prefetching =
        prefetch_stream(std::slice::from_ref(&input), &options("warm", 0, &cache)).unwrap();
    let stats = prefetching.wait().unwrap();
    assert!(prefetching.is_finished());
    assert_eq!(stats.pass1, Some(Pass1::Wrote));
    // The epoch's own pass 1, waited for: not written ahead.
    assert!(!stats.written_in_background);
    assert_eq!(stats.prefetch, Prefetch::Done);
    // Again: both are there.
    let stats = prefetch_stream(std::slice::from_ref(&input), &options("warm", 0, &cache))
        .unwrap()
        .wait()
        .unwrap();
    assert_eq!(stats.pass1, Some(Pass1::Reused));
    assert_eq!(stats.prefetch, Prefetch::Ready);
    for epoch in [0, 1] {
        let (got, stats) = run(&input, &options("warm", epoch, &cache));
        assert_eq!(got, expected("warm", epoch, n));
        assert_eq!(stats.pass1, Some(Pass1::Reused), "epoch {epoch}");
        // Epoch 1's was written ahead, in the background.
        assert_eq!(stats.written_in_background, epoch == 1, "epoch {epoch}");
    }
    // Without a cache directory it is an error, as is a stream that asks
    // for it.
    let mut none = options("warm", 0, &cache);
    none.cache_dir = None;
    let error = prefetch_stream(std::slice::from_ref(&input), &none)
        .err()
        .unwrap();
    assert_eq!(error.kind(), ErrorKind::Invalid);
    none.prefetch = true;
    let error = TableStream::open(std::slice::from_ref(&input), &none)
        .err()
        .unwrap();
    assert!(
        error.message().contains("cache directory"),
        "{}",
        error.message()
    );
}

#[test]
fn a_corrupt_input_leaves_no_entry_and_gives_no_row() {
    let dir = tempfile::tempdir().unwrap();
    let csvs = dir.path().join("csvs");
    fs::create_dir(&csvs).unwrap();
    let mut good = String::from("id,text\n");
    for i in 0..20_000 {
        good.push_str(&format!("{i},row {i}\n"));
    }
    fs::write(csvs.join("a.csv"), &good).unwrap();
    fs::write(csvs.join("b.csv"), format!("{good}1,2,3\n")).unwrap();
    let cache = dir.path().join("cache");
    for _ in 0..2 {
        let mut stream =
            TableStream::open(std::slice::from_ref(&csvs), &options("corrupt", 0, &cache)).unwrap();
        let error = stream.next().unwrap().expect_err("no row before the error");
        assert_eq!(error.kind(), ErrorKind::Invalid);
        assert!(error.message().contains("b.csv"), "{}", error.message());
        assert!(stream.next().is_none());
        assert_eq!(stream.stats().pass1, None);
        // Only the lock file of the entry is left.
        assert_eq!(entry_files(&cache, 0), ["lock"]);
    }
}

#[test]
fn a_pipe_cannot_be_cached() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("rows.csv");
    let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    let error = TableStream::open(&[fifo], &options("pipe", 0, &dir.path().join("cache")))
        .err()
        .unwrap();
    assert_eq!(error.kind(), ErrorKind::Invalid);
    assert!(
        error.message().contains("not a regular file"),
        "{}",
        error.message()
    );
}

/// A CSV table of one column `id`, its rows `ids` in this order.
fn id_csv(ids: impl Iterator<Item = usize>) -> String {
    ids.fold(String::from("id\n"), |csv, i| csv + &format!("{i}\n"))
}

#[test]
fn an_input_rewritten_at_its_size_with_its_time_set_back_is_read_again() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let n = 5000;
    let input = dir.path().join("rows.csv");
    fs::write(&input, id_csv(0..n)).unwrap();
    let cache = dir.path().join("cache");
    let (got, stats) = run(&input, &options("rewritten", 0, &cache));
    assert_eq!(stats.pass1, Some(Pass1::Wrote));
    assert_eq!(got, expected("rewritten", 0, n));
    // The same lines in reverse (the same size), written in place (the
    // same inode), its modification time set back (as `cp -p` does).
    let before = fs::metadata(&input).unwrap();
    fs::write(&input, id_csv((0..n).rev())).unwrap();
    File::options()
        .write(true)
        .open(&input)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    let after = fs::metadata(&input).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap(), after.ino()),
        (before.len(), before.modified().unwrap(), before.ino())
    );
    let (got, stats) = run(&input, &options("rewritten", 0, &cache));
    assert_eq!(stats.pass1, Some(Pass1::Wrote));
    // Row r of the new file has the id n - 1 - r.
    let new: Vec<u64> = expected("rewritten", 0, n)
        .iter()
        .map(|&row| (n - 1) as u64 - row)
        .collect();
    assert_eq!(got, new);
    // The old entry is gone (its input changed), the new one is read.
    let (got, stats) = run(&input, &options("rewritten", 0, &cache));
    assert_eq!(stats.pass1, Some(Pass1::Reused));
    assert_eq!(got, new);
    assert_eq!(fs::read_dir(&cache).unwrap().count(), 1);
}

#[test]
fn an_entry_whose_bucket_reads_back_other_rows_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let n = 9000;
    let input = shards(dir.path(), n);
    let cache = dir.path().join("cache");
    let order = expected("recount", 0, n);
    let (got, _) = run(&input, &options("recount", 0, &cache));
    assert_eq!(got, order);
    // The manifest says the first bucket holds a row more than it does.
    let path = path_of(&cache, 0, "manifest");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let rows = manifest["buckets"][0][0].as_u64().unwrap();
    manifest["buckets"][0][0] = (rows + 1).into();
    fs::write(&path, manifest.to_string()).unwrap();
    let mut stream =
        TableStream::open(std::slice::from_ref(&input), &options("recount", 0, &cache)).unwrap();
    let error = stream.find_map(Result::err).unwrap();
    assert!(
        error.message().contains("rows read back")
            && error
                .message()
                .ends_with("the cache's entry was removed: run again"),
        "{}",
        error.message()
    );
    drop(stream);
    assert!(entry_files(&cache, 0).is_empty());
    let (got, stats) = run(&input, &options("recount", 0, &cache));
    assert_eq!((got, stats.pass1), (order, Some(Pass1::Wrote)));
}

#[test]
fn another_seed_of_the_same_inputs_goes_at_the_end_of_an_epoch_unless_held() {
    let dir = tempfile::tempdir().unwrap();
    let n = 6000;
    let input = shards(dir.path(), n);
    let cache = dir.path().join("cache");
    let datasets = || fs::read_dir(&cache).unwrap().count();
    let (got, _) = run(&input, &options("tried once", 0, &cache));
    assert_eq!(got, expected("tried once", 0, n));
    // A stream of another seed holds its entry while it reads: kept.
    let mut reading =
        TableStream::open(std::slice::from_ref(&input), &options("held", 0, &cache)).unwrap();
    let first = reading.next().unwrap().unwrap();
    // The file times of the entries must differ.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (got, stats) = run(&input, &options("kept", 0, &cache));
    assert_eq!(got, expected("kept", 0, n));
    // "tried once" went; "held" stays while it is read.
    assert_eq!(stats.removed, 1);
    assert_eq!(datasets(), 2);
    let mut held = ids(&[first]);
    for batch in reading.by_ref() {
        held.extend(ids(&[batch.unwrap()]));
    }
    assert_eq!(held, expected("held", 0, n));
    drop(reading);
    // "held" ended its epoch after "kept" was written: it removes nothing
    // newer than its own entry.
    assert_eq!(datasets(), 2);
    // Another copy of the inputs is another dataset, left alone.
    let copy = dir.path().join("copy");
    fs::create_dir(&copy).unwrap();
    for shard in fs::read_dir(&input).unwrap() {
        let shard = shard.unwrap().path();
        fs::copy(&shard, copy.join(shard.file_name().unwrap())).unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (_, stats) = run(&copy, &options("kept", 1, &cache));
    assert_eq!(stats.removed, 0);
    assert_eq!(datasets(), 3);
}
