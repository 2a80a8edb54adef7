//! Process-wide settings, applied by the programs only (the `knuffle`
//! binary, the Python module), never by an engine: no library of the
//! workspace changes the state of the process it runs in. An engine reads
//! what it needs ([`open_file_limit`]) and works within it.

/// Raises the soft limit on open files to the hard limit: the external
/// shuffle keeps up to 256 bucket files open per scatter level (a bucket
/// scattered again keeps its level's others open), and `knuffle table`
/// writes every shard or partition at once. Failure is harmless: the
/// engines then work within the limit as it is, or say which limit is too
/// low. Returns the soft limit in force afterwards (`None`: unknown).
pub fn raise_open_file_limit() -> Option<u64> {
    let mut limit = current()?;
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the initialised struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    Some(limit.rlim_cur)
}

/// The soft limit on open files: how many files this process may hold
/// open at once (`None`: unknown).
pub fn open_file_limit() -> Option<u64> {
    current().map(|limit| limit.rlim_cur)
}

/// The limits on open files, soft and hard.
fn current() -> Option<libc::rlimit> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0).then_some(limit)
}

/// Makes glibc's allocator serve every block of 128 KiB or more with its
/// own mapping, returned to the system when freed. By default the
/// threshold grows with the blocks freed, and the external shuffle's freed
/// bucket buffers would then stay resident in the heap, beyond the memory
/// limit. Elsewhere a no-op.
pub fn return_freed_memory_at_once() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raised_limit_is_the_one_in_force() {
        let raised = raise_open_file_limit();
        assert!(raised.is_some_and(|n| n >= 1));
        assert_eq!(open_file_limit(), raised);
    }
}
