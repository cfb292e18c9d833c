//! Checkpoints and restarts of a distributed explicit run at any rank count (issue 18).
//!
//! A distributed run writes the checkpoint one process writes ([`crate::run::checkpoint`]:
//! versioned, checksummed, written atomically by rank 0): at a checkpoint step every rank
//! sends rank 0 its owned bodies and the kept active sets of the pairs it owns
//! (step 8 of [`super`]), so that rank 0 holds the whole state and
//! the one-process [`crate::detect::Detector::snapshot`] (the union of the ranks' kept
//! sets, in pair order). The kept sets are part of the checkpoint because the statistics
//! (tree checks per level, unfolds, narrows, skipped pairs) depend on them: without them a
//! resumed run would find the same contacts but report different work.
//!
//! A resumed run, at any rank count, starts with [`DistributedExplicit::begin`]: rank 0,
//! which read the checkpoint, sends every rank the restored state; every rank bisects its
//! particles anew (the decomposition never changes the results, so the one of the
//! interrupted run need not be kept), and rank 0 hands each rank the kept sets of the
//! pairs it now owns (a pair belongs to the owner of its particle `a`).

use std::sync::atomic::Ordering;

use mpi::traits::Communicator;
use serde::{Deserialize, Serialize};

use super::{encode, world, DistributedExplicit};
use crate::detect::Detector;
use crate::distributed::exchange::exchange;
use crate::error::StepError;
use crate::state::{Body, State};

/// What rank 0 sends every other rank before the first step.
#[derive(Serialize, Deserialize)]
enum Begin {
    /// Continue after step `step`: from the initial state every rank built (`bodies`
    /// absent) or from a restored checkpoint's bodies, with the kept sets of the pairs
    /// the receiving rank owns ([`Detector::take_pair_states`] bytes).
    Start {
        step: u64,
        time: f64,
        bodies: Option<Vec<Body>>,
        kept: Vec<u8>,
    },
    /// Rank 0 takes no step (it resumed at the last step): nothing to do.
    Done,
}

impl DistributedExplicit {
    /// The start of the run, on every rank (rank 0 inside its first step, the others
    /// before their loop): rank 0 sends the state it continues from — a restored
    /// checkpoint's is bisected anew for this rank count and its kept sets go to the
    /// ranks owning their pairs. Returns the step the run continues after, `None` when
    /// rank 0 said it takes no step.
    pub fn begin(
        &mut self,
        state: &mut State,
        detector: &mut Detector,
    ) -> Result<Option<u64>, StepError> {
        self.began.store(true, Ordering::Relaxed);
        let size = self.size as usize;
        let mut out = vec![Vec::new(); size];
        if self.rank == 0 {
            let restored = state.step > 0;
            let mut kept = vec![Vec::new(); size];
            if restored {
                self.redecompose(state)
                    .map_err(|e| self.fail(state, format!("restart: {e}")))?;
                let owner = &self.owner;
                kept = detector.take_pair_states(
                    |a| match owner.get(a as usize) {
                        Some(&r) if r != 0 => Some(r as usize),
                        _ => None,
                    },
                    size,
                );
            }
            let bodies = restored.then(|| state.bodies.clone());
            for (r, k) in kept.into_iter().enumerate().skip(1) {
                out[r] = encode(&Begin::Start {
                    step: state.step,
                    time: state.time,
                    bodies: bodies.clone(),
                    kept: k,
                });
            }
        }
        let got = self.swap(state, &out)?;
        if self.rank == 0 {
            return Ok(Some(state.step));
        }
        match self.decode::<Begin>(state, &got[0], "start")? {
            Begin::Done => Ok(None),
            Begin::Start {
                step,
                time,
                bodies,
                kept,
            } => {
                if let Some(bodies) = bodies {
                    if bodies.len() != state.bodies.len() {
                        return Err(self.fail(
                            state,
                            format!(
                                "restart: {} particles from rank 0 for a run of {}",
                                bodies.len(),
                                state.bodies.len()
                            ),
                        ));
                    }
                    state.bodies = bodies;
                    state.step = step;
                    state.time = time;
                    self.redecompose(state)
                        .map_err(|e| self.fail(state, format!("restart: {e}")))?;
                }
                detector
                    .insert_pair_states(&kept)
                    .map_err(|e| self.fail(state, format!("restart: {e}")))?;
                Ok(Some(step))
            }
        }
    }

    /// Step 8 (module docs of [`super`]): the owned bodies and the kept sets of every
    /// rank to rank 0, whose state and detector then hold the whole run for the
    /// checkpoint. Rank 0's detector drops the other ranks' sets again at its next
    /// detection (they are not among its candidate pairs); the other ranks keep theirs.
    pub(in crate::distributed) fn gather_checkpoint(
        &mut self,
        state: &mut State,
        detector: &mut Detector,
    ) -> Result<(), StepError> {
        let size = self.size as usize;
        let mut out = vec![Vec::new(); size];
        if self.rank != 0 {
            let bodies: Vec<(u32, &Body)> = self
                .owned
                .iter()
                .map(|&k| (k, &state.bodies[k as usize]))
                .collect();
            out[0] = encode(&(bodies, detector.pair_states()));
        }
        let before = self.traffic.bytes_sent;
        let got = self.swap(state, &out)?;
        self.traffic.bytes_gathered += self.traffic.bytes_sent - before;
        if self.rank != 0 {
            return Ok(());
        }
        for (src, m) in got.iter().enumerate().skip(1) {
            let (bodies, kept): (Vec<(u32, Body)>, Vec<u8>) =
                self.decode(state, m, "checkpoint")?;
            for (id, body) in bodies {
                match state.bodies.get_mut(id as usize) {
                    Some(slot) => *slot = body,
                    None => {
                        return Err(self.fail(
                            state,
                            format!("checkpoint: particle {id} from rank {src} does not exist"),
                        ))
                    }
                }
            }
            detector
                .insert_pair_states(&kept)
                .map_err(|e| self.fail(state, format!("checkpoint from rank {src}: {e}")))?;
        }
        Ok(())
    }
}

/// Rank 0 of a run that took no step (it resumed from a checkpoint of the last step):
/// tells the other ranks, waiting in [`DistributedExplicit::begin`], that there is
/// nothing to do. An error names what failed.
pub fn release() -> Result<(), String> {
    let comm = world();
    let size = comm.size() as usize;
    let done = encode(&Begin::Done);
    let mut out = vec![done; size];
    out[0].clear();
    exchange(&comm, &out, &mut 0).map(|_| ())
}
