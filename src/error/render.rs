//! What can go wrong while rendering the site, by the stage that failed.

/// Rendering the site failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// plotters could not draw a chart.
    #[error("{0}")]
    Chart(String),
    /// The lab's templates do not parse.
    #[error("templates: {0}")]
    Templates(String),
    /// A template failed on a page.
    #[error("{page}: {message}")]
    Page {
        /// The page (`suites/demo`).
        page: String,
        /// tera's message with its causes.
        message: String,
    },
    /// A chart's PNG export could not be drawn.
    #[error("{file}: {message}")]
    Png {
        /// The PNG's path in the site.
        file: String,
        /// What went wrong.
        message: String,
    },
}
