//! What a local time stepping run carries from one synchronisation interval into the next
//! beyond the [`State`](crate::state::State), as bytes for a checkpoint (issue 16's
//! restart for seed 004).
//!
//! At the end of an interval every particle's current snapshot is the synchronised state,
//! but its previous one (`t⁻`, seed 004 §2.1) is not: it sets the particle's admissible
//! span (eq. (3)) and the first segment of its space-time tube (§3). The warm-start
//! impulses of the persistent contacts ([`super::warm`]) and the narrowing's separation
//! witnesses ([`super::witnesses`], which change its work counts) also carry over. These
//! are stored;
//! everything else is rebuilt in the first sweep after a restore and gives the same
//! results: the broad phase is rebuilt from scratch at every interval's start, and every
//! narrowing result kept for reuse is stale by then (every particle advanced in the
//! interval that ended, so its version changed).

use serde::{Deserialize, Serialize};

use super::snapshot::Timeline;
use super::warm::WarmStore;
use super::witnesses::WitnessStore;

/// Format version of the carried bytes, checked first.
pub const CARRY_VERSION: u32 = 1;

/// The carried state of [`super::LocalTimeStepping`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Carried {
    /// [`CARRY_VERSION`].
    pub version: u32,
    /// Every particle's two snapshots.
    pub timelines: Vec<Timeline>,
    /// Every particle's kept contact points.
    pub warm: WarmStore,
    /// Every particle's separation witnesses.
    pub witnesses: WitnessStore,
}

/// `carried` as bytes (postcard).
pub fn encode(carried: &Carried) -> Vec<u8> {
    postcard::to_allocvec(carried).unwrap_or_default()
}

/// The [`Carried`] of `bytes`; an error names what did not decode or the foreign version.
pub fn decode(bytes: &[u8], name: &str) -> Result<Carried, String> {
    let version: u32 = match postcard::take_from_bytes::<u32>(bytes) {
        Ok((v, _)) => v,
        Err(e) => return Err(format!("{name}: carried state: {e}")),
    };
    if version != CARRY_VERSION {
        return Err(format!(
            "{name}: carried state of format version {version}, this build reads {CARRY_VERSION}"
        ));
    }
    let c: Carried =
        postcard::from_bytes(bytes).map_err(|e| format!("{name}: carried state: {e}"))?;
    if c.timelines.len() != c.warm.len() || c.timelines.len() != c.witnesses.len() {
        return Err(format!(
            "{name}: carried state of {} particles with contact points of {} and \
             witnesses of {}",
            c.timelines.len(),
            c.warm.len(),
            c.witnesses.len()
        ));
    }
    Ok(c)
}
