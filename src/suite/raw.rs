//! A test as written (`RawTest`), and the checks of its keys against each other that make
//! it a [`TestSpec`]; each error names the key at its head.

use serde::{Deserialize, Deserializer};

use crate::config::{checked_map, BlockSizes, Count, Duration, Fraction, Ident, QueueDepth, Size};
use crate::io::EngineChoice;
use crate::workload::{
    Better, Burst, DataKind, IoOptions, Length, Metric, OfRepeats, Operation, Pattern,
    Precondition, RateLimit, Remap, ReplayMode, ReplaySpec, RingOptions, SampleKeep, Span,
    SteadyState, SteadyStateKey, TestKind, TraceRef, Workload,
};

use super::{TestSpec, Variants};

fn threads<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    crate::config::whole_number(d, 1, 256).map(|n| Some(n as u32))
}

/// The test as written; validated into [`TestSpec`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTest {
    id: Ident,
    title: String,
    #[serde(default)]
    kind: TestKind,
    #[serde(default)]
    operation: Option<Operation>,
    #[serde(default)]
    pattern: Option<Pattern>,
    #[serde(default)]
    block_size: Option<BlockSizes>,
    #[serde(default)]
    trace: Option<TraceRef>,
    #[serde(default)]
    mode: Option<ReplayMode>,
    #[serde(default)]
    time_scale: Option<f64>,
    #[serde(default)]
    max_idle: Option<Duration>,
    #[serde(default)]
    remap: Option<Remap>,
    #[serde(default)]
    align: Option<Size>,
    span: Span,
    queue_depth: QueueDepth,
    #[serde(default, deserialize_with = "threads")]
    threads: Option<u32>,
    #[serde(default)]
    engine: Option<EngineChoice>,
    #[serde(default)]
    duration: Option<Duration>,
    #[serde(default)]
    count: Option<Count>,
    #[serde(default)]
    passes: Option<Count>,
    #[serde(default)]
    warmup: Option<Duration>,
    #[serde(default)]
    repeats: Option<Count>,
    #[serde(default)]
    interval: Option<Duration>,
    #[serde(default)]
    host_latency: Option<Duration>,
    #[serde(default)]
    of_repeats: Option<OfRepeats>,
    metric: Metric,
    #[serde(default)]
    better: Option<Better>,
    #[serde(default)]
    data: Option<DataKind>,
    #[serde(default)]
    compressible_fraction: Option<Fraction>,
    #[serde(default)]
    precondition: Precondition,
    #[serde(default)]
    steady_state: Option<SteadyStateKey>,
    #[serde(default)]
    rate: Option<RateLimit>,
    #[serde(default)]
    burst: Option<Burst>,
    #[serde(default)]
    samples: SampleKeep,
    #[serde(default)]
    io_uring: RingOptions,
    #[serde(default)]
    cpus: Option<Vec<u32>>,
    #[serde(default)]
    variants: Variants,
}

impl<'de> Deserialize<'de> for TestSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_map(d, "a test (a mapping of its keys)", TestSpec::from_raw)
    }
}

impl TestSpec {
    /// Checks a test's keys against each other; an error names the key at its head.
    fn from_raw(raw: RawTest) -> Result<TestSpec, String> {
        let replay = match raw.kind {
            TestKind::Synthetic => {
                raw.check_synthetic()?;
                None
            }
            TestKind::Replay => Some(raw.replay()?),
        };
        if raw.burst.is_some() && (raw.rate.is_some() || raw.steady_state.is_some()) {
            return Err(
                "burst: expected without `rate` and `steady_state` (bursts set their own \
                 pace: a burst, then idle time)"
                    .into(),
            );
        }
        if replay.is_some() && raw.rate.is_some() {
            return Err(
                "rate: expected only in a synthetic test (a replay issues at its \
                 trace's times, or as fast as it can)"
                    .into(),
            );
        }
        if raw.cpus.as_ref().is_some_and(|c| c.is_empty()) {
            return Err("cpus: expected a list of CPU numbers such as [0, 1]".into());
        }
        let round_major = raw
            .steady_state
            .as_ref()
            .and_then(|s| s.round_major.clone());
        if round_major.is_some() && raw.samples == SampleKeep::Both {
            return Err(
                "samples: a round-major test keeps a row per I/O of every round (`raw`) or \
                 the histogram of its measurement window (`histogram`); expected one of them"
                    .into(),
            );
        }
        if raw.steady_state.is_some()
            && round_major.is_none()
            && raw.samples == SampleKeep::Histogram
        {
            return Err(
                "samples: a steady-state test reports its measurement window, which only \
                 the rows can cut out; expected `raw` or `both`"
                    .into(),
            );
        }
        let length = raw.length(replay.is_some())?;
        // A 99th percentile of fewer than 100 I/Os is the slowest of them.
        if let (Metric::LatP99Us, Length::Count(n)) = (raw.metric, length) {
            if n < 100 {
                return Err(format!(
                    "metric: lat_p99_us needs 100 I/Os or more to be other than the slowest; \
                     `count` gives {n} (raise it, or chart lat_max_us)"
                ));
            }
        }
        if raw.steady_state.is_some() && !matches!(length, Length::Duration(_)) {
            return Err(
                "steady_state: rounds are `duration` long; give a duration, not a count".into(),
            );
        }
        if raw.repeats.is_some_and(|r| r.0 > 10_000) {
            return Err("repeats: expected a whole number from 1 to 10000".into());
        }
        let repeats = raw.repeats.map(|r| r.0 as u32).unwrap_or(1);
        if repeats < 2 && raw.of_repeats.is_some() {
            return Err(
                "of_repeats: which figure of a test's repeats to show; expected with \
                 `repeats` of 2 or more"
                    .into(),
            );
        }
        if raw.host_latency.is_some_and(|h| h.0 > 1_000_000_000) {
            return Err(
                "host_latency: expected at most a second of the host's own time a request".into(),
            );
        }
        if raw.interval.is_some_and(|i| i.0 > 3_600_000_000_000) {
            return Err("interval: expected at most an hour of idle time before the test".into());
        }
        let align = raw.align()?;
        raw.variants.check()?;
        raw.check_variants(replay.is_some())?;
        if round_major.is_some() && repeats > 1 {
            return Err(
                "repeats: a round-major test runs every variant in each of its rounds; \
                        expected no repeats"
                    .into(),
            );
        }
        let spec = TestSpec {
            id: raw.id,
            title: raw.title,
            workload: Workload {
                operation: raw.operation.unwrap_or(Operation { read_percent: 100 }),
                pattern: raw.pattern.unwrap_or(Pattern::Random),
                block_size: raw.block_size.unwrap_or(BlockSizes(vec![(4096, 1)])),
                align,
                span: raw.span,
                queue_depth: raw.queue_depth.0,
                threads: raw.threads.unwrap_or(1),
                length,
                warmup_ns: raw.warmup.map(|w| w.0).unwrap_or(0),
                interval_ns: raw.interval.map(|i| i.0).unwrap_or(0),
                host_latency_ns: raw.host_latency.map_or(0, |h| h.0),
                data: raw.data.unwrap_or(DataKind::Incompressible),
                compressible_fraction: raw.compressible_fraction.map(|f| f.0).unwrap_or(0.25),
                replay,
                rate: raw.rate,
                burst: raw.burst,
                io: IoOptions {
                    ring: raw.io_uring,
                    cpus: raw.cpus.clone().unwrap_or_default(),
                },
                samples: raw.samples,
                precondition: raw.precondition,
                steady_state: raw.steady_state.map(|s| SteadyState {
                    track: match raw.metric {
                        Metric::Iops | Metric::MbPerS => raw.metric,
                        _ => Metric::LatMeanUs,
                    },
                    ..s.spec
                }),
            },
            repeats,
            of_repeats: raw.of_repeats.unwrap_or_default(),
            better: raw.better.unwrap_or(raw.metric.default_better()),
            metric: raw.metric,
            variants: raw.variants,
            engine: raw.engine,
            round_major,
        };
        spec.check_round_major()?;
        Ok(spec)
    }

    /// A round-major test's tracked variant is one of its variants, of which it has two or
    /// more.
    fn check_round_major(&self) -> Result<(), String> {
        let Some(track) = &self.round_major else {
            return Ok(());
        };
        let ids: Vec<String> = self.expand().into_iter().map(|(v, _)| v.id).collect();
        if ids.len() < 2 {
            return Err(
                "steady_state.round_major: a round runs every variant of the test; \
                        expected `variants:` with two or more"
                    .into(),
            );
        }
        if !ids.contains(track) {
            let shown = if ids.len() > 8 {
                format!("{}, … {}", ids[..4].join(", "), ids[ids.len() - 1])
            } else {
                ids.join(", ")
            };
            return Err(format!(
                "steady_state.round_major: expected one of the test's variants ({shown}), \
                 found `{track}`"
            ));
        }
        Ok(())
    }
}

impl RawTest {
    /// A replay's requests come from its trace: no variant may change their operation or
    /// their rate.
    fn check_variants(&self, replay: bool) -> Result<(), String> {
        if replay && !self.variants.writes.is_empty() {
            return Err(
                "variants.writes: expected only in a synthetic test (a replay's \
                        operations are its trace's)"
                    .into(),
            );
        }
        if replay && !self.variants.rate.is_empty() {
            return Err(
                "variants.rate: expected only in a synthetic test (a replay issues \
                        at its trace's times, or as fast as it can)"
                    .into(),
            );
        }
        Ok(())
    }

    /// A synthetic test has what its generator needs and none of a replay's keys.
    fn check_synthetic(&self) -> Result<(), String> {
        for (name, given) in [
            ("trace", self.trace.is_some()),
            ("mode", self.mode.is_some()),
            ("time_scale", self.time_scale.is_some()),
            ("max_idle", self.max_idle.is_some()),
            ("remap", self.remap.is_some()),
        ] {
            if given {
                return Err(format!("{name}: applies to `kind: replay` tests"));
            }
        }
        for (name, missing) in [
            ("operation", self.operation.is_none()),
            ("pattern", self.pattern.is_none()),
            ("block_size", self.block_size.is_none()),
        ] {
            if missing {
                return Err(format!("missing field `{name}` (a synthetic test needs operation, pattern and block_size)"));
            }
        }
        Ok(())
    }

    /// A replay test's trace and how it is played; it has none of a generator's keys.
    fn replay(&self) -> Result<ReplaySpec, String> {
        for (name, given) in [
            ("operation", self.operation.is_some()),
            ("pattern", self.pattern.is_some()),
            ("block_size", self.block_size.is_some()),
            ("duration", self.duration.is_some()),
            ("count", self.count.is_some()),
            ("passes", self.passes.is_some()),
            ("steady_state", self.steady_state.is_some()),
            ("burst", self.burst.is_some()),
        ] {
            if given {
                return Err(format!(
                    "{name}: a replay test plays its trace, whole; leave `{name}` out"
                ));
            }
        }
        let Some(t) = self.trace.clone() else {
            return Err("missing field `trace` (a replay test needs the trace file)".into());
        };
        let scale = self.time_scale.unwrap_or(1.0);
        if self.max_idle.is_some() && self.mode != Some(ReplayMode::Timed) {
            return Err(
                "max_idle: idle gaps are kept only in `mode: timed` playback; \
                        expected with it"
                    .into(),
            );
        }
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(format!(
                "time_scale: expected a number above zero, found {scale}"
            ));
        }
        Ok(ReplaySpec {
            trace: t.0,
            mode: self.mode.unwrap_or_default(),
            time_scale: scale,
            max_idle: self.max_idle.map(|d| d.0),
            remap: self.remap.unwrap_or_default(),
        })
    }

    /// How long the measured part runs: a duration, a count, or passes over the span (a
    /// replay: its whole trace).
    fn length(&self, replay: bool) -> Result<Length, String> {
        if let Some(p) = self.passes {
            if self.duration.is_some() || self.count.is_some() {
                return Err(
                    "passes: expected one of `duration`, `count` or `passes`, found more".into(),
                );
            }
            if self.pattern != Some(Pattern::Sequential) {
                return Err("passes: a pass covers the span once in order; expected \
                            `pattern: sequential`"
                    .into());
            }
            if self.block_size.as_ref().is_some_and(|b| b.0.len() > 1) {
                return Err(
                    "passes: expected a single block size (a pass is the span in \
                            blocks of one size)"
                        .into(),
                );
            }
            if p.0 > 1000 {
                return Err("passes: expected a whole number from 1 to 1000".into());
            }
            return Ok(Length::Passes(p.0 as u32));
        }
        Ok(match (self.duration, self.count) {
            _ if replay => Length::Count(u64::MAX),
            (Some(dur), None) if dur.0 > 0 => Length::Duration(dur.0),
            (Some(_), None) => return Err("duration: expected a duration above zero".into()),
            (None, Some(c)) => Length::Count(c.0),
            (Some(_), Some(_)) => {
                return Err("count: expected either `duration` or `count`, found both".into())
            }
            (None, None) => {
                return Err(
                    "expected a length: `duration` (e.g. 3m), `count` (a number of \
                            I/Os) or `passes` (over the span)"
                        .into(),
                )
            }
        })
    }

    /// The alignment of the offsets: `align`, else the smallest block; a multiple of 512
    /// bytes, as every `variants.align` is.
    fn align(&self) -> Result<u64, String> {
        let align = self
            .align
            .map(|a| a.0)
            .unwrap_or_else(|| self.block_size.as_ref().map(|b| b.min()).unwrap_or(512));
        let key = if self.align.is_some() {
            "align"
        } else {
            "block_size"
        };
        for (key, a) in std::iter::once((key, align))
            .chain(self.variants.align.iter().map(|a| ("variants.align", a.0)))
        {
            if a % 512 != 0 {
                return Err(format!(
                    "{key}: expected a multiple of 512 bytes (O_DIRECT needs sector alignment; \
                     offsets are aligned to `align`, else to the smallest block), found {a} B"
                ));
            }
        }
        Ok(align)
    }
}
