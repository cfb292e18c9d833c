//! Pipeline runner library.
#![warn(missing_docs)]
