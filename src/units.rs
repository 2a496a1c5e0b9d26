//! Sizes, durations and rates as reviewers write them, and the way reports print them.
//!
//! Sizes follow the storage convention: `KiB`, `MiB`, `GiB`, `TiB` and the fio-style
//! shorthands `k`, `m`, `g`, `t` are binary (1024); `kB`/`KB`, `MB`, `GB`, `TB` are decimal
//! (10^3), the way drive capacities are marketed. Throughput is always decimal MB/s.

use std::fmt;

/// Parses a size such as `4KiB`, `512B`, `128k`, `8GiB`, `160GB` or `4096` into bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    if num.is_empty() {
        return Err(format!(
            "expected a size such as 4KiB, 128k or 8GiB, found {text:?}"
        ));
    }
    let mult: u64 = match unit {
        "" | "B" | "b" => 1,
        "k" | "K" | "KiB" | "kiB" => 1 << 10,
        "m" | "M" | "MiB" => 1 << 20,
        "g" | "G" | "GiB" => 1 << 30,
        "t" | "T" | "TiB" => 1 << 40,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        _ => {
            return Err(format!(
                "expected a size unit (B, KiB, MiB, GiB, TiB, k, m, g, KB, MB, GB, TB), found {unit:?} in {text:?}"
            ))
        }
    };
    // In exact decimal: 64.1GB is 64,100,000,000 bytes, which 64.1 × 1e9 in floating point
    // misses by a fraction.
    let (whole, fraction) = num.split_once('.').unwrap_or((num, ""));
    let fraction = fraction.trim_end_matches('0');
    let number_expected =
        || format!("expected a number before the unit, found {num:?} in {text:?}");
    if num.trim_matches('.').is_empty() || fraction.contains('.') {
        return Err(number_expected());
    }
    let out_of_range = || format!("size {text:?} is out of range");
    // Digits only (the split above stops at anything else), so parsing fails on length.
    let scaled: u128 = format!("{whole}{fraction}")
        .parse()
        .map_err(|_| out_of_range())?;
    let scaled = scaled.checked_mul(mult as u128).ok_or_else(out_of_range)?;
    let divisor = 10u128
        .checked_pow(fraction.len() as u32)
        .ok_or_else(out_of_range)?;
    if scaled % divisor != 0 {
        return Err(format!("size {text:?} is not a whole number of bytes"));
    }
    u64::try_from(scaled / divisor).map_err(|_| out_of_range())
}

/// Parses a duration such as `3m`, `90s`, `500ms`, `50us`, `1h` or `2m30s` into nanoseconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("expected a duration such as 90s, 3m or 500ms, found an empty value".into());
    }
    let mut total: f64 = 0.0;
    let mut rest = t;
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (num, after) = rest.split_at(split);
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let value: f64 = num
            .parse()
            .map_err(|_| format!("expected a duration such as 90s, 3m or 500ms, found {text:?}"))?;
        let scale = match unit.trim() {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" | "min" => 60e9,
            "h" => 3600e9,
            "" => {
                return Err(format!(
                    "expected a unit (ns, us, ms, s, m, h) after {num:?} in {text:?}"
                ))
            }
            other => {
                return Err(format!(
                    "expected a duration unit (ns, us, ms, s, m, h), found {other:?} in {text:?}"
                ))
            }
        };
        total += value * scale;
        rest = next;
    }
    if !total.is_finite() || total > u64::MAX as f64 {
        return Err(format!("duration {text:?} is out of range"));
    }
    Ok(total.round() as u64)
}

/// Parses a transfer rate such as `250MB/s`, `1.5GB/s` or `200MiB/s` into bytes per second.
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let Some(size) = t.strip_suffix("/s") else {
        return Err(format!("expected a rate such as 250MB/s, found {text:?}"));
    };
    // Rates may be fractional (1.5GB/s), so parse the number and unit separately.
    let split = size
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(size.len());
    let (num, unit) = size.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("expected a rate such as 250MB/s, found {text:?}"))?;
    let unit_bytes = parse_size(&format!("1{}", unit.trim()))? as f64;
    let rate = value * unit_bytes;
    if !(rate.is_finite() && rate > 0.0) {
        return Err(format!("expected a positive rate, found {text:?}"));
    }
    Ok(rate)
}

/// A size printed the way a review writes it: `4 KiB`, `128 KiB`, `8 GiB`, `512 B`.
pub struct SizeLabel(pub u64);

/// The binary units sizes are printed in, largest first.
const BINARY_UNITS: [(u64, &str); 4] = [
    (1 << 40, "TiB"),
    (1 << 30, "GiB"),
    (1 << 20, "MiB"),
    (1 << 10, "KiB"),
];

impl fmt::Display for SizeLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (scale, name) in BINARY_UNITS {
            if self.0 >= scale && self.0 % scale == 0 {
                return write!(f, "{} {name}", self.0 / scale);
            }
        }
        for (scale, name) in BINARY_UNITS {
            if self.0 >= scale {
                return write!(f, "{:.1} {name}", self.0 as f64 / scale as f64);
            }
        }
        write!(f, "{} B", self.0)
    }
}

/// A size for people to read: in the largest binary unit it reaches, exact when whole,
/// else to one decimal (`111.8 GiB` for 120 GB, where [`SizeLabel`] keeps it exact as
/// `117187500 KiB`).
pub struct SizeRounded(pub u64);

impl fmt::Display for SizeRounded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (scale, name) in BINARY_UNITS {
            if self.0 >= scale {
                return if self.0 % scale == 0 {
                    write!(f, "{} {name}", self.0 / scale)
                } else {
                    write!(f, "{:.1} {name}", self.0 as f64 / scale as f64)
                };
            }
        }
        write!(f, "{} B", self.0)
    }
}

/// A compact size token for identifiers and file names: `4k`, `128k`, `512b`, `8g`.
pub fn size_token(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1 << 40, "t"),
        (1 << 30, "g"),
        (1 << 20, "m"),
        (1 << 10, "k"),
    ];
    for (scale, name) in UNITS {
        if bytes >= scale && bytes % scale == 0 {
            return format!("{}{name}", bytes / scale);
        }
    }
    format!("{bytes}b")
}

/// A duration printed for people: `3 min`, `90 s`, `2.5 s`, `1.2 ms`, `350 µs`.
pub struct DurationLabel(pub u64);

impl fmt::Display for DurationLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns >= 60_000_000_000 && ns % 60_000_000_000 == 0 {
            write!(f, "{} min", ns / 60_000_000_000)
        } else if ns >= 1_000_000_000 {
            write!(f, "{} s", trim_float(ns as f64 / 1e9))
        } else if ns >= 1_000_000 {
            write!(f, "{} ms", trim_float(ns as f64 / 1e6))
        } else if ns >= 1_000 {
            write!(f, "{} µs", trim_float(ns as f64 / 1e3))
        } else {
            write!(f, "{ns} ns")
        }
    }
}

/// An estimated length of time in seconds, as a person reads one: `42.5 s`, `18 min`,
/// `2 min 30 s`, `3.5 h`, `6.9 days` (below a minute as [`DurationLabel`] prints it).
pub struct RoughDuration(pub f64);

impl fmt::Display for RoughDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0.max(0.0);
        if s < 60.0 {
            write!(f, "{}", DurationLabel((s * 1e9).round() as u64))
        } else if s < 3600.0 {
            let total = s.round() as u64;
            match (total / 60, total % 60) {
                (m, 0) => write!(f, "{m} min"),
                (m, sec) if m < 10 => write!(f, "{m} min {sec} s"),
                _ => write!(f, "{} min", (s / 60.0).round()),
            }
        } else if s < 48.0 * 3600.0 {
            write!(f, "{} h", trim_float((s / 360.0).round() / 10.0))
        } else {
            write!(f, "{} days", trim_float((s / 8640.0).round() / 10.0))
        }
    }
}

/// A count and its noun, plural unless one: `1 job`, `6 jobs`, `0 drives`, `2 flushes`.
pub struct Counted<'a>(pub usize, pub &'a str);

impl fmt::Display for Counted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = self.1;
        let s = if self.0 == 1 {
            ""
        } else if ["s", "sh", "ch", "x", "z"]
            .iter()
            .any(|e| noun.ends_with(e))
        {
            "es"
        } else {
            "s"
        };
        write!(f, "{} {noun}{s}", self.0)
    }
}

/// A number with at most two decimals and no trailing zeros: `2.5`, `3`.
pub fn trim_float(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Formats a figure with the precision a review table uses: three significant digits,
/// at least no decimals for large numbers (`28.9`, `0.02`, `1520`, `37501`).
pub fn figure(v: f64) -> String {
    figure_to(v, 0)
}

/// `v` as [`figure`] writes it, with `extra` more decimals.
pub fn figure_to(v: f64, extra: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    let digits = if a >= 100.0 || a == 0.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        libm::floor(-libm::log10(a)) as usize + 2
    } + extra;
    format!("{v:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rough_durations() {
        let r = |s: f64| RoughDuration(s).to_string();
        assert_eq!(r(0.0004), "400 µs");
        assert_eq!(r(42.5), "42.5 s");
        assert_eq!(r(1080.0), "18 min");
        assert_eq!(r(150.0), "2 min 30 s");
        assert_eq!(r(1234.5), "21 min");
        assert_eq!(r(3.5 * 3600.0), "3.5 h");
        assert_eq!(r(600_000.0), "6.9 days");
    }

    #[test]
    fn sizes_binary_and_decimal() {
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("512B").unwrap(), 512);
        assert_eq!(parse_size("128k").unwrap(), 131072);
        assert_eq!(parse_size("8GiB").unwrap(), 8 << 30);
        assert_eq!(parse_size("160GB").unwrap(), 160_000_000_000);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("1.5MiB").unwrap(), 1572864);
        assert!(parse_size("4XB").unwrap_err().contains("size unit"));
        assert!(parse_size("KiB").is_err());
        assert!(parse_size("0.3B").is_err());
        // Exact decimals: 64.1 × 1e9 in floating point is not a whole number.
        assert_eq!(parse_size("64.1GB").unwrap(), 64_100_000_000);
        assert_eq!(parse_size("0.5KiB").unwrap(), 512);
        assert_eq!(parse_size("2.000GB").unwrap(), 2_000_000_000);
        assert_eq!(
            parse_size(&format!("0.5{}KiB", "0".repeat(50))).unwrap(),
            512
        );
        assert_eq!(parse_size("4.KiB").unwrap(), 4096);
        assert_eq!(parse_size(".5k").unwrap(), 512);
        assert!(parse_size("1.2.3GB")
            .unwrap_err()
            .contains("expected a number"));
        assert!(parse_size(".GB").unwrap_err().contains("expected a number"));
        assert!(parse_size("99999999999999999999TB")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_size(&"9".repeat(60))
            .unwrap_err()
            .contains("out of range"));
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        assert!(parse_size("18446744073709551616")
            .unwrap_err()
            .contains("out of range"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("3m").unwrap(), 180_000_000_000);
        assert_eq!(parse_duration("90s").unwrap(), 90_000_000_000);
        assert_eq!(parse_duration("500ms").unwrap(), 500_000_000);
        assert_eq!(parse_duration("50us").unwrap(), 50_000);
        assert_eq!(parse_duration("2m30s").unwrap(), 150_000_000_000);
        assert_eq!(parse_duration("1.5s").unwrap(), 1_500_000_000);
        assert!(parse_duration("90").unwrap_err().contains("unit"));
        assert!(parse_duration("5 parsecs").is_err());
    }

    #[test]
    fn rates_are_decimal() {
        assert_eq!(parse_rate("250MB/s").unwrap(), 250e6);
        assert_eq!(parse_rate("1.5GB/s").unwrap(), 1.5e9);
        assert_eq!(parse_rate("1MiB/s").unwrap(), 1048576.0);
        assert!(parse_rate("250MB").is_err());
    }

    #[test]
    fn labels() {
        assert_eq!(SizeLabel(4096).to_string(), "4 KiB");
        assert_eq!(SizeLabel(8 << 30).to_string(), "8 GiB");
        assert_eq!(SizeLabel(512).to_string(), "512 B");
        assert_eq!(SizeRounded(120_000_000_000).to_string(), "111.8 GiB");
        assert_eq!(SizeRounded(8 << 30).to_string(), "8 GiB");
        assert_eq!(SizeRounded(1536 << 20).to_string(), "1.5 GiB");
        assert_eq!(size_token(131072), "128k");
        assert_eq!(size_token(512), "512b");
        assert_eq!(DurationLabel(180_000_000_000).to_string(), "3 min");
        assert_eq!(DurationLabel(1_200_000).to_string(), "1.2 ms");
        assert_eq!(figure(28.87), "28.9");
        assert_eq!(figure(0.0213), "0.021");
        assert_eq!(figure(1520.4), "1520");
        assert_eq!(Counted(1, "job").to_string(), "1 job");
        assert_eq!(Counted(0, "drive").to_string(), "0 drives");
        assert_eq!(
            Counted(6, "commentary file").to_string(),
            "6 commentary files"
        );
        assert_eq!(Counted(2, "flush").to_string(), "2 flushes");
        assert_eq!(Counted(0, "trim").to_string(), "0 trims");
    }
}
