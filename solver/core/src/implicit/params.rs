//! Parameters of the implicit Euler (seed 000 Alg. 3 / Alg. 6, §6.1): pure data shared with
//! the scenario schema, defined in `msdem_scenario::picard` and re-exported here so that
//! `crate::implicit::{PicardParams, PicardVariant}` keep working.

pub use msdem_scenario::picard::{PicardParamError, PicardParams, PicardVariant};
