//! Field parsers every text format shares: exact decimal times, sectors to bytes, whole
//! numbers naming their field, device names in natural order, and a request checked for
//! size; and [`Bad`], what is wrong with a line and in which of its fields.

use std::str::FromStr;

use crate::trace::{TraceOp, TraceRequest};

/// What is wrong with a line: what was expected, and where the field it is about starts
/// (the address of its text, a slice of the line; 0 where no one field is).
#[derive(Debug)]
pub(super) struct Bad {
    pub(super) at: usize,
    pub(super) message: String,
}

impl Bad {
    /// A problem with the field `field`, a slice of the line.
    pub(super) fn in_field(field: &str, message: impl Into<String>) -> Bad {
        Bad {
            at: field.as_ptr() as usize,
            message: message.into(),
        }
    }

    /// The 1-based column in `line` of the field, 0 where there is none or it is not a
    /// slice of `line`.
    pub(super) fn column(&self, line: &str) -> usize {
        let start = line.as_ptr() as usize;
        match self.at.checked_sub(start) {
            Some(off) if self.at != 0 && off <= line.len() && line.is_char_boundary(off) => {
                line[..off].chars().count() + 1
            }
            _ => 0,
        }
    }
}

impl From<String> for Bad {
    fn from(message: String) -> Bad {
        Bad { at: 0, message }
    }
}

impl From<&str> for Bad {
    fn from(message: &str) -> Bad {
        message.to_string().into()
    }
}

pub(super) fn is_num(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && s.bytes().any(|b| b.is_ascii_digit())
}

/// Parses a non-negative decimal number of `unit_ns` nanoseconds exactly (no float
/// rounding of long timestamps).
pub(super) fn decimal_ns(s: &str, unit_ns: u64) -> std::result::Result<u64, Bad> {
    let s = s.trim();
    if s.starts_with('-') {
        return Err(Bad::in_field(
            s,
            format!("expected a time of zero or more, found {s:?} (negative)"),
        ));
    }
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let bad = || Bad::in_field(s, format!("expected a time, found {s:?}"));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let whole: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    let mut ns = whole.checked_mul(unit_ns).ok_or_else(bad)?;
    let mut scale = unit_ns;
    for d in frac.bytes() {
        scale /= 10;
        if scale == 0 {
            break;
        }
        ns = ns.checked_add((d - b'0') as u64 * scale).ok_or_else(bad)?;
    }
    Ok(ns)
}

/// The `sectors` of 512 bytes the field `field` holds, in bytes, or an error naming `what`
/// where the field is not a whole number or its bytes overflow.
pub(super) fn sector_bytes(field: &str, what: &str) -> std::result::Result<u64, Bad> {
    sectors_to_bytes(whole(field, what)?, field, what)
}

/// `sectors` of 512 bytes (read from `field`) in bytes, or an error naming `what` where
/// that overflows.
pub(super) fn sectors_to_bytes(
    sectors: u64,
    field: &str,
    what: &str,
) -> std::result::Result<u64, Bad> {
    sectors.checked_mul(512).ok_or_else(|| {
        Bad::in_field(
            field.trim(),
            format!("expected the {what} (512-byte sectors) below 2^55, found {sectors}"),
        )
    })
}

/// Compares two device names in natural order: runs of digits by their value, so that
/// `hm,2` comes before `hm,10` and `3` before `13`.
pub(super) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let runs = |s: &str| -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for ch in s.chars() {
            let digit = ch.is_ascii_digit();
            match out.last_mut() {
                Some((d, run)) if *d == digit => run.push(ch),
                _ => out.push((digit, ch.to_string())),
            }
        }
        out
    };
    let key = |(digit, run): &(bool, String)| {
        let value = if *digit {
            run.trim_start_matches('0')
        } else {
            run.as_str()
        };
        (
            !*digit,
            if *digit { value.len() } else { 0 },
            value.to_string(),
        )
    };
    let (ra, rb) = (runs(a), runs(b));
    ra.iter()
        .map(key)
        .cmp(rb.iter().map(key))
        .then_with(|| a.cmp(b))
}

/// The whole number the field `s` holds, or an error naming it as `what`.
pub(super) fn whole<T: FromStr>(s: &str, what: &str) -> std::result::Result<T, Bad> {
    let s = s.trim();
    s.parse::<T>().map_err(|_| {
        Bad::in_field(
            s,
            format!("expected a whole number for the {what}, found {s:?}"),
        )
    })
}

pub(super) fn req(
    time_ns: u64,
    op: TraceOp,
    offset: u64,
    len: u64,
) -> std::result::Result<Option<TraceRequest>, String> {
    let len = u32::try_from(len)
        .map_err(|_| format!("expected a request size below 4 GiB, found {len} bytes"))?;
    Ok(Some(TraceRequest {
        time_ns,
        op,
        offset,
        len,
        complete_ns: None,
        qd: None,
        process: None,
    }))
}
