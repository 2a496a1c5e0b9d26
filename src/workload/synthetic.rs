//! The synthetic request generator: offsets, sizes and the read/write mix of a suite test.

use rand_chacha::ChaCha8Rng;

use crate::io::{IoRequest, Op};
use crate::rng::{below, stream};
use crate::workload::{Pattern, RateLimit, Workload};

use super::IoSource;

/// Generates the requests of one job from its workload and seed, without end (the engine
/// decides when the job is over).
pub struct SyntheticSource {
    rng: ChaCha8Rng,
    pattern: Pattern,
    read_percent: u8,
    sizes: Vec<(u64, u64)>, // (size, cumulative weight)
    total_weight: u64,
    align: u64,
    span: u64,
    next_seq: u64,
    cursor: u64,
    /// The next two requests, generated ahead (the stream is the same).
    ahead: [IoRequest; 2],
    /// This source's share of the test's offered load, if it has one.
    rate: Option<RateLimit>,
    /// Bytes of the requests handed out so far (an offered load in bytes per second).
    sent_bytes: u64,
}

impl SyntheticSource {
    /// A generator over `span` bytes. The caller has checked that the span holds the
    /// largest block.
    pub fn new(w: &Workload, span: u64, seed: u64) -> SyntheticSource {
        let mut acc = 0;
        let sizes = w
            .block_size
            .0
            .iter()
            .map(|(s, wt)| {
                acc += *wt as u64;
                (*s, acc)
            })
            .collect();
        let mut source = SyntheticSource {
            rng: stream(seed, "requests"),
            pattern: w.pattern,
            read_percent: w.operation.read_percent,
            sizes,
            total_weight: acc,
            align: w.align.max(1),
            span,
            next_seq: 0,
            cursor: 0,
            ahead: [IoRequest {
                seq: 0,
                op: Op::Read,
                offset: 0,
                len: 0,
            }; 2],
            rate: w.rate,
            sent_bytes: 0,
        };
        source.ahead = [source.generate(), source.generate()];
        source
    }

    /// Shares the test's offered load among `loops` sources (the engine's loops), each
    /// issuing its part.
    pub fn share_rate(mut self, loops: u32) -> SyntheticSource {
        let n = loops.max(1) as f64;
        self.rate = self.rate.map(|r| match r {
            RateLimit::Iops(v) => RateLimit::Iops(v / n),
            RateLimit::BytesPerSecond(v) => RateLimit::BytesPerSecond(v / n),
        });
        self
    }

    fn generate(&mut self) -> IoRequest {
        let op = match self.read_percent {
            100 => Op::Read,
            0 => Op::Write,
            r => {
                if below(&mut self.rng, 100) < r as u64 {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        };
        let len = if self.sizes.len() == 1 {
            self.sizes[0].0
        } else {
            let pick = below(&mut self.rng, self.total_weight);
            self.sizes
                .iter()
                .find(|(_, cum)| pick < *cum)
                .map(|(s, _)| *s)
                .unwrap_or(self.sizes[0].0)
        };
        let offset = match self.pattern {
            Pattern::Random => {
                let slots = (self.span - len) / self.align + 1;
                below(&mut self.rng, slots) * self.align
            }
            Pattern::Sequential => {
                if self.cursor + len > self.span {
                    self.cursor = 0;
                }
                let o = self.cursor;
                self.cursor += len;
                o
            }
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        IoRequest {
            seq,
            op,
            offset,
            len: len as u32,
        }
    }
}

impl IoSource for SyntheticSource {
    fn next_request(&mut self) -> Option<IoRequest> {
        let next = self.generate();
        let r = self.ahead[0];
        self.ahead = [self.ahead[1], next];
        self.sent_bytes += r.len as u64;
        Some(r)
    }

    /// Under an offered load, when the next request is due: the `n`th request at `n / rate`
    /// seconds, or after the bytes before it at the byte rate (warm-up included).
    fn next_deadline(&self) -> Option<u64> {
        let secs = match self.rate? {
            RateLimit::Iops(r) => self.ahead[0].seq as f64 / r,
            RateLimit::BytesPerSecond(b) => self.sent_bytes as f64 / b,
        };
        Some((secs * 1e9) as u64)
    }

    fn peek(&self) -> Option<&IoRequest> {
        Some(&self.ahead[0])
    }

    fn peek_further(&self) -> Option<&IoRequest> {
        Some(&self.ahead[1])
    }

    fn max_len(&self) -> u32 {
        self.sizes.iter().map(|(s, _)| *s).max().unwrap_or(0) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BlockSizes;
    use crate::workload::{Length, Span};

    fn workload(pattern: Pattern, sizes: Vec<(u64, u32)>, align: u64, read: u8) -> Workload {
        let mut w = Workload::simple(
            read,
            pattern,
            4096,
            Span::Bytes(1 << 30),
            1,
            Length::Count(1),
        );
        w.block_size = BlockSizes(sizes);
        w.align = align;
        w
    }

    #[test]
    fn the_two_requests_peeked_are_the_next_two_handed_out() {
        let w = workload(Pattern::Random, vec![(4096, 1), (65536, 1)], 4096, 50);
        let mut g = SyntheticSource::new(&w, 1 << 30, 9);
        for _ in 0..100 {
            let (next, further) = (*g.peek().unwrap(), *g.peek_further().unwrap());
            assert_eq!(g.next_request().unwrap(), next);
            assert_eq!(*g.peek().unwrap(), further);
            assert_eq!(further.seq, next.seq + 1);
        }
    }

    #[test]
    fn same_seed_same_sequence() {
        let w = workload(Pattern::Random, vec![(4096, 1)], 4096, 70);
        let a: Vec<_> = (0..1000)
            .map({
                let mut g = SyntheticSource::new(&w, 1 << 30, 9);
                move |_| g.next_request().unwrap()
            })
            .collect();
        let b: Vec<_> = (0..1000)
            .map({
                let mut g = SyntheticSource::new(&w, 1 << 30, 9);
                move |_| g.next_request().unwrap()
            })
            .collect();
        let c: Vec<_> = (0..1000)
            .map({
                let mut g = SyntheticSource::new(&w, 1 << 30, 10);
                move |_| g.next_request().unwrap()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let reads = a.iter().filter(|r| r.op == Op::Read).count();
        assert!((630..770).contains(&reads), "{reads} reads of 1000 at 70%");
    }

    #[test]
    fn random_offsets_stay_in_span_and_aligned() {
        let span = 8 << 20;
        for align in [512, 4096] {
            let w = workload(Pattern::Random, vec![(4096, 3), (65536, 1)], align, 0);
            let mut g = SyntheticSource::new(&w, span, 1);
            let mut seen_unaligned_4k = false;
            for _ in 0..20_000 {
                let r = g.next_request().unwrap();
                assert_eq!(r.offset % align, 0);
                assert!(r.offset + r.len as u64 <= span);
                seen_unaligned_4k |= r.offset % 4096 != 0;
            }
            assert_eq!(
                seen_unaligned_4k,
                align == 512,
                "512 B alignment must produce offsets off the 4 KiB grid"
            );
        }
    }

    #[test]
    fn sequential_is_sequential_and_wraps() {
        let span = 1 << 20;
        let w = workload(Pattern::Sequential, vec![(131072, 1)], 131072, 100);
        let mut g = SyntheticSource::new(&w, span, 1);
        let offs: Vec<u64> = (0..10).map(|_| g.next_request().unwrap().offset).collect();
        assert_eq!(
            offs[..8],
            [0, 131072, 262144, 393216, 524288, 655360, 786432, 917504]
        );
        assert_eq!(offs[8], 0, "wraps at the end of the span");
        assert_eq!(offs[9], 131072);
    }

    #[test]
    fn size_mix_follows_weights() {
        let w = workload(
            Pattern::Random,
            vec![(4096, 30), (16384, 11), (32768, 22), (65536, 13)],
            4096,
            0,
        );
        let mut g = SyntheticSource::new(&w, 1 << 30, 3);
        let mut n4 = 0;
        for _ in 0..76_000 {
            if g.next_request().unwrap().len == 4096 {
                n4 += 1;
            }
        }
        // 30 of 76 weight: 30,000 expected.
        assert!((29_000..31_000).contains(&n4), "{n4}");
    }
}
