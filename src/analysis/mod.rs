//! Analysis: per-job figures computed from the raw samples with polars (`job.rs`), and the
//! per-test figures that charts and tables show (`figures.rs`).

mod figures;
mod fill;
mod job;

pub use figures::{
    cdf_over_repeats, current_firmware, figures, figures_where, firmware_history, leaderboard, Bar,
    RunTrace, TestFigures,
};
pub use fill::{Fill, FillPoint, FILL_DROP, FILL_POINTS};
pub use job::{
    bucket_quantile, quantile, radix_sort, summarize, summarize_job, JobSummary, OpSummary,
    TimePoint, CDF_PERCENTILES, TIMELINE_POINTS,
};
