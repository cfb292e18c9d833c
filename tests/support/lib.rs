//! Helpers for the end-to-end tests: locating the built binaries and scratch folders.
