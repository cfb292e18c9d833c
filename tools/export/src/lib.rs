//! Exporter library.
#![warn(missing_docs)]
