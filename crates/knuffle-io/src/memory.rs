//! Memory sizes: parsing `--memory SIZE` and choosing a default limit.

use std::fs;

/// The smallest memory limit external mode works with.
pub const MIN_LIMIT: u64 = 1 << 20;

/// The limit used when the machine's available memory cannot be read.
const FALLBACK_LIMIT: u64 = 1 << 30;

/// Parses a size like `sort -S`: a number with an optional unit suffix
/// `K`, `M`, `G`, `T`, `P`, `E` (powers of 1024; `k` and `KiB`/`KB` forms
/// accepted), `b` or no suffix for bytes, or `%` for a percentage of the
/// machine's physical memory.
///
/// ```
/// use knuffle_io::parse_size;
/// assert_eq!(parse_size("512M"), Ok(512 << 20));
/// assert_eq!(parse_size("4G"), Ok(4 << 30));
/// assert_eq!(parse_size("1000"), Ok(1000));
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    let invalid = || format!("invalid memory size: '{text}'");
    let trimmed = text.trim();
    let digits_end = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    if digits_end == 0 {
        return Err(invalid());
    }
    let number: u64 = trimmed[..digits_end].parse().map_err(|_| invalid())?;
    let suffix = &trimmed[digits_end..];
    if suffix == "%" {
        if number > 100 {
            return Err(invalid());
        }
        let total = physical_memory()
            .ok_or_else(|| format!("cannot read the machine's memory size for '{text}'"))?;
        return Ok((u128::from(total) * u128::from(number) / 100) as u64);
    }
    let unit = suffix
        .strip_suffix("iB")
        .or_else(|| suffix.strip_suffix("B").filter(|s| !s.is_empty()))
        .unwrap_or(suffix);
    let shift = match unit {
        "" | "b" | "B" => 0,
        "k" | "K" => 10,
        "m" | "M" => 20,
        "g" | "G" => 30,
        "t" | "T" => 40,
        "p" | "P" => 50,
        "e" | "E" => 60,
        _ => return Err(invalid()),
    };
    number
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("memory size too large: '{text}'"))
}

/// Why a memory limit is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitError {
    /// The text is not a size ([`parse_size`]'s message).
    Invalid(String),
    /// Below [`MIN_LIMIT`].
    TooSmall,
}

/// A memory limit given as a size ([`parse_size`]): at least
/// [`MIN_LIMIT`]. Each front end words the refusal its own way.
pub fn parse_limit(text: &str) -> Result<u64, LimitError> {
    check_limit(parse_size(text).map_err(LimitError::Invalid)?)
}

/// A memory limit given in bytes: at least [`MIN_LIMIT`].
pub fn check_limit(bytes: u64) -> Result<u64, LimitError> {
    if bytes < MIN_LIMIT {
        return Err(LimitError::TooSmall);
    }
    Ok(bytes)
}

/// The default memory limit: the smallest of three quarters of the memory
/// available now (`MemAvailable` in `/proc/meminfo`), three quarters of the
/// room left under the cgroup's limit (v2 `memory.max`, v1
/// `memory.limit_in_bytes`, ancestors included), and the address space left
/// under `RLIMIT_AS` (`ulimit -v`) after what the process already maps and
/// `address_headroom`; at least [`MIN_LIMIT`]; 1 GiB when none can be
/// read. See `budget`.
pub fn default_limit() -> u64 {
    let meminfo = fs::read_to_string("/proc/meminfo").ok();
    let available = meminfo
        .as_deref()
        .and_then(|text| meminfo_field(text, "MemAvailable:"));
    budget(available, cgroup_room(), address_space_room())
}

/// The memory budget from its three sources (each `None` when unknown or
/// unlimited): three quarters of the `available` memory, three quarters of
/// the room left under the cgroup's limit, and all of the room left under
/// `RLIMIT_AS` (already net of the mapped address space and the headroom:
/// a hard limit known exactly, which a line as long as half of it must be
/// able to use). The smallest wins, raised to [`MIN_LIMIT`]; 1 GiB when
/// all three are unknown.
///
/// ```text
/// let gib = 1u64 << 30;
/// assert_eq!(budget(Some(16 * gib), None, None), 12 * gib);
/// assert_eq!(budget(Some(16 * gib), Some(4 * gib), None), 3 * gib);
/// assert_eq!(budget(Some(16 * gib), Some(4 * gib), Some(2 * gib)), 2 * gib);
/// assert_eq!(budget(None, None, None), gib);
/// ```
pub fn budget(available: Option<u64>, cgroup_room: Option<u64>, address_room: Option<u64>) -> u64 {
    let share = |bytes: u64| bytes / 4 * 3;
    [available.map(share), cgroup_room.map(share), address_room]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(FALLBACK_LIMIT)
        .max(MIN_LIMIT)
}

/// Address space kept, under `RLIMIT_AS`, for what the process maps besides
/// its buffers once it runs: the C library reserves 64 MiB of address space
/// for each thread's allocation arena (up to 8 per core; a shuffle runs a
/// thread per core for rendering and one or two for reading), and each
/// thread maps a stack. Kept: two arenas per core and four more, at 64 MiB
/// each (the threads' stacks, 2 MiB each, fit in that).
pub fn address_headroom(cores: u64) -> u64 {
    (2 * cores + 4).saturating_mul(64 << 20)
}

/// The address space left under `RLIMIT_AS` (`None`: no limit): the
/// limit, less what the process maps now (`VmSize` in `/proc/self/status`)
/// and [`address_headroom`].
fn address_space_room() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct we own; it only fails (-1) on a
    // bad resource number.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let mapped = fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|text| meminfo_field(&text, "VmSize:"))
        .unwrap_or(0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    Some(address_room(limit.rlim_cur, mapped, cores))
}

/// The room under an address-space limit of `limit` bytes for a process
/// mapping `mapped` bytes now on `cores` cores.
pub fn address_room(limit: u64, mapped: u64, cores: u64) -> u64 {
    limit
        .saturating_sub(mapped)
        .saturating_sub(address_headroom(cores))
}

/// Total physical memory (`MemTotal`).
fn physical_memory() -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_field(&text, "MemTotal:")
}

/// A `/proc/meminfo` (or `/proc/self/status`) field in bytes (the file
/// says `kB`, meaning KiB).
fn meminfo_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Memory left under the limits of this process's cgroup and its
/// ancestors (the smallest `limit - usage` of any that has a limit), for
/// cgroup v2 and v1 alike; `None` when no limit applies or none can be read.
fn cgroup_room() -> Option<u64> {
    let membership = fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = fs::read_to_string("/proc/self/mountinfo").ok()?;
    cgroup_dirs(&membership, &mounts)
        .into_iter()
        .filter_map(|(version, dir)| match version {
            CgroupVersion::V2 => room_of(&dir, "memory.max", "memory.current"),
            CgroupVersion::V1 => room_of(&dir, "memory.limit_in_bytes", "memory.usage_in_bytes"),
        })
        .min()
}

/// `limit - usage` in `dir` (`None` when the limit is `max` or absurdly
/// large, as v1 writes "no limit", or either file is missing).
fn room_of(dir: &std::path::Path, limit: &str, usage: &str) -> Option<u64> {
    let limit = parse_cgroup_limit(&fs::read_to_string(dir.join(limit)).ok()?)?;
    let usage: u64 = fs::read_to_string(dir.join(usage))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(limit.saturating_sub(usage))
}

/// A cgroup memory limit as written in `memory.max` (v2) or
/// `memory.limit_in_bytes` (v1): `None` for `max` and for v1's "no limit"
/// (the largest page-aligned `i64`, or anything from 2^62 bytes up).
pub fn parse_cgroup_limit(text: &str) -> Option<u64> {
    let bytes: u64 = text.trim().parse().ok()?;
    (bytes < 1 << 62).then_some(bytes)
}

/// Which cgroup hierarchy a directory belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CgroupVersion {
    /// The unified hierarchy (`memory.max`, `memory.current`).
    V2,
    /// The v1 memory controller (`memory.limit_in_bytes`,
    /// `memory.usage_in_bytes`).
    V1,
}

/// The directories whose memory limits apply to this process: its cgroup
/// and every ancestor up to the mount's root, for the v2 hierarchy and the
/// v1 memory controller, from `/proc/self/cgroup` (`membership`) and
/// `/proc/self/mountinfo` (`mounts`). A cgroup outside the mount's root (a
/// container seeing only its own subtree) is looked up from the root.
pub fn cgroup_dirs(membership: &str, mounts: &str) -> Vec<(CgroupVersion, std::path::PathBuf)> {
    let mut dirs = Vec::new();
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let version = if controllers.is_empty() {
            CgroupVersion::V2
        } else if controllers.split(',').any(|c| c == "memory") {
            CgroupVersion::V1
        } else {
            continue;
        };
        let Some((root, mount_point)) = cgroup_mount(mounts, version) else {
            continue;
        };
        let relative = path
            .strip_prefix(root.as_str())
            .unwrap_or(path)
            .trim_start_matches('/');
        let mut dir = std::path::PathBuf::from(&mount_point);
        let mut chain = vec![dir.clone()];
        for part in relative.split('/').filter(|p| !p.is_empty()) {
            dir.push(part);
            chain.push(dir.clone());
        }
        dirs.extend(chain.into_iter().rev().map(|d| (version, d)));
    }
    dirs
}

/// The root and mount point of the cgroup file system of `version` in
/// `/proc/self/mountinfo` (fields: id, parent, device, root, mount point,
/// options, optional fields, `-`, type, source, super options).
fn cgroup_mount(mounts: &str, version: CgroupVersion) -> Option<(String, String)> {
    mounts.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let fields: Vec<&str> = before.split(' ').collect();
        let mut rest = after.split(' ');
        let kind = rest.next()?;
        let options = rest.nth(1).unwrap_or("");
        let wanted = match version {
            CgroupVersion::V2 => kind == "cgroup2",
            CgroupVersion::V1 => kind == "cgroup" && options.split(',').any(|o| o == "memory"),
        };
        (wanted && fields.len() >= 5).then(|| (fields[3].to_string(), fields[4].to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_is_a_size_of_at_least_one_mebibyte() {
        assert_eq!(parse_limit("1M"), Ok(MIN_LIMIT));
        assert_eq!(parse_limit("1048575"), Err(LimitError::TooSmall));
        assert_eq!(check_limit(MIN_LIMIT - 1), Err(LimitError::TooSmall));
        assert_eq!(check_limit(MIN_LIMIT), Ok(MIN_LIMIT));
        assert_eq!(
            parse_limit("lots"),
            Err(LimitError::Invalid("invalid memory size: 'lots'".into()))
        );
    }

    #[test]
    fn sizes_parse_like_sort() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("100MiB"), Ok(100 << 20));
        assert_eq!(parse_size("100MB"), Ok(100 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("1000b"), Ok(1000));
        assert_eq!(parse_size("2T"), Ok(2 << 40));
        assert!(parse_size("50%").unwrap() > 0);
        for bad in ["", "M", "12X", "1.5G", "-1G", "101%", "99999999E"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_budget_is_the_smallest_of_its_sources() {
        let gib = 1u64 << 30;
        assert_eq!(budget(Some(16 * gib), None, None), 12 * gib);
        // RLIMIT_AS is taken whole (a hard limit, net of what is mapped).
        assert_eq!(budget(Some(16 * gib), None, Some(3 * gib)), 3 * gib);
        assert_eq!(
            budget(Some(16 * gib), Some(2 * gib), Some(3 * gib)),
            3 * gib / 2
        );
        assert_eq!(budget(None, Some(8 * gib), None), 6 * gib);
        assert_eq!(budget(None, None, None), FALLBACK_LIMIT);
        assert_eq!(budget(Some(0), Some(0), Some(0)), MIN_LIMIT);
        // ulimit -v 4000000 with 40 MiB mapped on 2 cores.
        let room = address_room(4_000_000 << 10, 40 << 20, 2);
        assert_eq!(room, (4_000_000 << 10) - (40 << 20) - 8 * (64 << 20));
        assert!(room > (2 << 30) + (2 << 20), "a 2 GiB line fits");
        assert_eq!(address_room(100 << 20, 40 << 20, 2), 0);
    }

    #[test]
    fn cgroup_limits_parse_for_both_versions() {
        assert_eq!(parse_cgroup_limit("max\n"), None);
        assert_eq!(parse_cgroup_limit("536870912\n"), Some(512 << 20));
        assert_eq!(parse_cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(parse_cgroup_limit("junk"), None);
    }

    #[test]
    fn cgroup_directories_are_found_with_their_ancestors() {
        let v1_membership = "9:name=systemd:/\n4:memory:/jobs/run-7\n3:cpuset:/\n0::/\n";
        let mounts = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
                      35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
                      34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n\
                      41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
        let dirs = cgroup_dirs(v1_membership, mounts);
        let want: Vec<(CgroupVersion, std::path::PathBuf)> = vec![
            (CgroupVersion::V1, "/sys/fs/cgroup/memory/jobs/run-7".into()),
            (CgroupVersion::V1, "/sys/fs/cgroup/memory/jobs".into()),
            (CgroupVersion::V1, "/sys/fs/cgroup/memory".into()),
            (CgroupVersion::V2, "/sys/fs/cgroup/unified".into()),
        ];
        assert_eq!(dirs, want);
        // A v2-only system.
        let v2 = "0::/user.slice/app.scope\n";
        let v2_mounts = "25 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
        assert_eq!(
            cgroup_dirs(v2, v2_mounts),
            vec![
                (
                    CgroupVersion::V2,
                    "/sys/fs/cgroup/user.slice/app.scope".into()
                ),
                (CgroupVersion::V2, "/sys/fs/cgroup/user.slice".into()),
                (CgroupVersion::V2, "/sys/fs/cgroup".into()),
            ]
        );
        // A cgroup under a mount whose root is a subtree.
        let sub_mounts = "25 1 0:22 /kubepods /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            cgroup_dirs("0::/kubepods/pod1\n", sub_mounts),
            vec![
                (CgroupVersion::V2, "/sys/fs/cgroup/pod1".into()),
                (CgroupVersion::V2, "/sys/fs/cgroup".into()),
            ]
        );
        assert!(cgroup_dirs("garbage", mounts).is_empty());
    }

    #[test]
    fn the_default_is_usable() {
        assert!(default_limit() >= MIN_LIMIT);
        assert_eq!(
            meminfo_field("MemAvailable:   2048 kB\n", "MemAvailable:"),
            Some(2 << 20)
        );
    }
}
