//! roundup: a reproducible review-report generator for storage drives.
//!
//! The pipeline, one module per stage, data flowing one way:
//! [`suite`] and [`drive`] files (loaded by [`lab`]) → [`plan`] (jobs) → [`engine`] driving a
//! [`target`] (file, block device or simulated drive) with requests from [`workload`] →
//! [`store`] (Parquet samples and manifests) → [`analysis`] (figures, via polars) →
//! [`render`] (the static site, with [`commentary`]). [`run`] ties plan, engine and store
//! together; the command line is in the binary. The words every stage shares sit at the
//! bottom: [`units`], [`error`], [`io`], [`rng`], [`config`]; each module imports only
//! modules below it (docs/ARCHITECTURE.md; `tests/architecture.rs` checks it).

#![warn(missing_docs)]

pub mod analysis;
pub mod commentary;
pub mod config;
pub mod drive;
pub mod engine;
pub mod error;
pub mod hash;
pub mod io;
pub mod lab;
pub mod plan;
pub mod render;
pub mod rng;
pub mod run;
pub mod serve;
pub mod store;
pub mod suite;
pub mod target;
pub mod trace;
pub mod units;
pub mod workload;

pub use error::{Error, InputError, Result};
