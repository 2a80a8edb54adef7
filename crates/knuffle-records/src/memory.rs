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
/// use knuffle_records::parse_size;
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

/// The default memory limit: three quarters of the memory available now
/// (`MemAvailable` in `/proc/meminfo`, or the room left under the cgroup's
/// `memory.max` when that is smaller), at least [`MIN_LIMIT`]; 1 GiB when
/// neither can be read.
pub fn default_limit() -> u64 {
    let meminfo = fs::read_to_string("/proc/meminfo").ok();
    let available = meminfo
        .as_deref()
        .and_then(|text| meminfo_field(text, "MemAvailable:"));
    let cgroup_room = cgroup_room();
    let room = match (available, cgroup_room) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    };
    room.map_or(FALLBACK_LIMIT, |r| r / 4 * 3).max(MIN_LIMIT)
}

/// Total physical memory (`MemTotal`).
fn physical_memory() -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_field(&text, "MemTotal:")
}

/// A `/proc/meminfo` field in bytes (the file says `kB`, meaning KiB).
fn meminfo_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Memory left under a cgroup v2 limit (`memory.max - memory.current`).
fn cgroup_room() -> Option<u64> {
    let max = fs::read_to_string("/sys/fs/cgroup/memory.max").ok()?;
    let max: u64 = max.trim().parse().ok()?; // "max" (no limit) fails here
    let current: u64 = fs::read_to_string("/sys/fs/cgroup/memory.current")
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(max.saturating_sub(current))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_default_is_usable() {
        assert!(default_limit() >= MIN_LIMIT);
        assert_eq!(
            meminfo_field("MemAvailable:   2048 kB\n", "MemAvailable:"),
            Some(2 << 20)
        );
    }
}
