//! Bit errors in page reads, their correction and the occasional read retry.

/// A page read's bit errors ([`crate::drive::EccSpec`]), resolved for the page size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Ecc {
    /// Mean bit errors in a page read, and the chance of none (e^-mean).
    pub(super) mean: f64,
    pub(super) none: f64,
    pub(super) codewords: u64,
    pub(super) correct: u64,
    pub(super) retry: f64,
    /// The decoder's time a byte (0: no limit) and a codeword's bytes.
    pub(super) decode_ns_per_byte: f64,
    pub(super) codeword: u64,
    /// The encoder's time a byte on the way to the NAND (0: no limit).
    pub(super) encode_ns_per_byte: f64,
}

impl Ecc {
    pub(super) fn of(e: &crate::drive::EccSpec, page: u64) -> Ecc {
        let mean = e.bit_error_rate * (page * 8) as f64;
        let codeword = e.codeword.map_or(512, |c| c.0);
        Ecc {
            mean,
            none: libm::exp(-mean),
            codewords: page / codeword,
            correct: e.correct.0,
            retry: e.retry.unwrap_or(0.0),
            decode_ns_per_byte: e.decode_rate.map_or(0.0, |r| 1e9 / r.0),
            codeword,
            encode_ns_per_byte: e.encode_rate.map_or(0.0, |r| 1e9 / r.0),
        }
    }
}

/// A page read's correction time (its codewords holding errors, each `correct`), and
/// whether the decode fails and the page is read again. Drawn from the drive's own
/// stream: the same reads give the same errors on every run.
pub(super) fn bit_errors(rng: &mut rand_chacha::ChaCha8Rng, ecc: Ecc) -> (u64, bool) {
    const UNIT: f64 = (1u64 << 53) as f64;
    let mut u = crate::rng::below(rng, 1 << 53) as f64 / UNIT;
    // Poisson by inversion: the cumulative chance of k errors until it passes u.
    let (mut k, mut pk) = (0u64, ecc.none);
    let mut cum = pk;
    while u >= cum && k < 64 {
        k += 1;
        pk *= ecc.mean / k as f64;
        cum += pk;
    }
    // Which codewords the errors fell in (at most 128 to a page).
    let mut hit = 0u128;
    for _ in 0..k {
        hit |= 1 << crate::rng::below(rng, ecc.codewords);
    }
    let fix = hit.count_ones() as u64 * ecc.correct;
    u = crate::rng::below(rng, 1 << 53) as f64 / UNIT;
    (fix, ecc.retry > 0.0 && u < ecc.retry)
}
