//! What the engine issues: the workload a test describes (`spec`), seeded request
//! generators ([`SyntheticSource`], [`TraceSource`]) and write-data patterns
//! ([`DataFiller`]). Every random draw comes from [`crate::rng`].

mod data;
mod replay;
mod spec;
mod synthetic;

pub use data::{compressed_fraction, DataFiller};
pub use replay::{placed_len, ReplayReport, TraceSource};
pub use spec::{
    Better, Burst, DataKind, IoOptions, Length, Metric, OfRepeats, Operation, Pattern,
    Precondition, RateLimit, Remap, ReplayMode, ReplaySpec, RingOptions, SampleKeep, Span,
    SteadyState, SteadyStateKey, TestKind, TraceInput, TraceRef, Workload,
};
pub use synthetic::SyntheticSource;

use crate::io::{Command, IoRequest};

/// A stream of requests: the synthetic generator, and trace playback.
pub trait IoSource {
    /// The next request, or `None` when the source is exhausted. A source with commands
    /// gives them through [`IoSource::next_command`] first.
    fn next_request(&mut self) -> Option<IoRequest>;
    /// Takes the command that comes before the next request, if one does (the engine asks
    /// before every request).
    fn next_command(&mut self) -> Option<Command> {
        None
    }
    /// The largest request this source can produce (sizes the I/O buffers).
    fn max_len(&self) -> u32;
    /// The most I/Os in flight before the next request may issue (a trace's recorded queue
    /// depth), if the source has one.
    fn depth_limit(&self) -> Option<u32> {
        None
    }
    /// When the next request is due (ns on the queue clock), for timed playback.
    fn next_deadline(&self) -> Option<u64> {
        None
    }
    /// What playback changed, for a trace source.
    fn replay_report(&self) -> Option<ReplayReport> {
        None
    }
    /// The request the next call to `next_request` will return, where the source already
    /// knows it (the engine lets a simulated drive fetch that request's state early).
    fn peek(&self) -> Option<&IoRequest> {
        None
    }
    /// The request after that one, where the source already knows it (so that a
    /// simulated drive can fetch state that depends on the first state it fetched).
    fn peek_further(&self) -> Option<&IoRequest> {
        None
    }
}
