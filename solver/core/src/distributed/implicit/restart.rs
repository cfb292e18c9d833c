//! Checkpoints and restarts of a distributed implicit run at any rank count (issue 18).
//!
//! One process's implicit integrator carries the last evaluation of a step into the next
//! (the parent module's docs, `integrator/implicit.rs`: the accepted state's contacts,
//! coarse contacts and forces, which the next step's first iteration reuses), and its
//! checkpoint holds them ([`crate::integrator::Integrator::snapshot`]). Over ranks, that
//! evaluation is spread: each rank holds the contacts and coarse contacts of the pairs it
//! owns and the forces of the particles it owned during the step. At a checkpoint step,
//! after the bodies and kept sets went to rank 0 (the gather of
//! [`crate::distributed::explicit::DistributedExplicit`]), every rank sends rank 0 its
//! part — the contacts keyed by their place in the one-process contact order, the forces
//! of the particles it owned before this step's migration (a migrating particle takes its
//! force along only when the next step reuses it) and its candidate pairs — and rank 0
//! assembles the one-process snapshot: contacts merged in key order, forces by particle,
//! pairs summed, and the accepted bodies with step and time step when the evaluation is
//! reusable (`integrator::implicit::CarriedEvaluation`, the serial format's accessor). So
//! the checkpoint of a run on N ranks is byte for byte the one-process checkpoint.
//!
//! A resumed run, at any rank count, starts with [`DistributedImplicit::begin`]: after the
//! explicit start (restored bodies and kept sets, bisected anew), rank 0 — which decoded
//! the one-process snapshot — sends every rank the contacts of the pairs it now owns (a
//! pair belongs to the owner of its particle `a`), the forces of its particles and whether
//! (and for which step and time step) the evaluation is reusable — exactly when one
//! process resuming from that checkpoint would reuse it.

use serde::{Deserialize, Serialize};

use super::DistributedImplicit;
use crate::contact::force::Wrench;
use crate::contact::Contact;
use crate::detect::Detector;
use crate::distributed::explicit::{contact_keys, encode, ContactKey};
use crate::error::StepError;
use crate::integrator::implicit::CarriedEvaluation;
use crate::model::Other;
use crate::state::State;

/// One rank's part of the carried evaluation, sent to rank 0 at a checkpoint step.
#[derive(Serialize, Deserialize)]
struct Part {
    /// Candidate pairs of this rank's last evaluation.
    pairs: u32,
    contacts: Vec<(ContactKey, Contact)>,
    coarse: Vec<(ContactKey, Contact)>,
    /// Forces of the particles this rank owned during the step.
    computed: Vec<(u32, Wrench)>,
}

/// What rank 0 sends a rank on resume: its share of the restored evaluation.
#[derive(Serialize, Deserialize)]
struct Share {
    /// Step, time step \[s\] and candidate pairs when the evaluation is reusable.
    last: Option<(u64, f64, u32)>,
    contacts: Vec<Contact>,
    coarse: Vec<Contact>,
    computed: Vec<(u32, Wrench)>,
}

/// Rank 0's assembled evaluation of a checkpoint step, before the step counter moves on.
pub(super) struct Assembled {
    /// Candidate pairs and time step \[s\] of a reusable evaluation.
    last: Option<(u32, f64)>,
    contacts: Vec<Contact>,
    coarse: Vec<Contact>,
    computed: Vec<Wrench>,
}

impl Assembled {
    /// The one-process snapshot after the step, at the (whole, gathered) `state`.
    pub(super) fn encode(self, state: &State) -> Vec<u8> {
        let last = self
            .last
            .map(|(pairs, dt)| (state.bodies.clone(), state.step, pairs, dt));
        CarriedEvaluation::new(last, self.contacts, self.coarse, self.computed).encode()
    }
}

/// `contacts` with their keys in the one-process contact order.
fn keyed(contacts: &[Contact]) -> Vec<(ContactKey, Contact)> {
    contact_keys(contacts)
        .into_iter()
        .zip(contacts.iter().copied())
        .collect()
}

impl DistributedImplicit {
    /// The start of the run on every rank: the explicit start
    /// ([`crate::distributed::explicit::DistributedExplicit::begin`]), then, when the run
    /// resumes from a checkpoint, rank 0's share-out of the restored evaluation (module
    /// docs). Returns the step the run continues after, `None` when
    /// rank 0 takes no step.
    pub fn begin(
        &mut self,
        state: &mut State,
        detector: &mut Detector,
    ) -> Result<Option<u64>, StepError> {
        let from = self.core.begin(state, detector)?;
        if from.is_some() && state.step > 0 {
            self.share_out(state)?;
        }
        Ok(from)
    }

    /// Rank 0 sends every rank its share of the restored evaluation; every rank takes
    /// its own.
    fn share_out(&mut self, state: &State) -> Result<(), StepError> {
        let size = self.core.size as usize;
        let n = state.bodies.len();
        let mut out = vec![Vec::new(); size];
        if self.core.rank == 0 {
            let Some(restored) = self.restored.take() else {
                return Err(self.core.fail(state, "restart: no carried evaluation"));
            };
            let (last, contacts, coarse, computed) = restored.into_parts(state);
            if computed.len() != n {
                return Err(self.core.fail(
                    state,
                    format!(
                        "restart: the checkpoint carries forces of {} particles for a run of {n}",
                        computed.len()
                    ),
                ));
            }
            let mut shares: Vec<Share> = (0..size)
                .map(|r| Share {
                    last: last.map(|(step, pairs, dt)| (step, dt, if r == 0 { pairs } else { 0 })),
                    contacts: Vec::new(),
                    coarse: Vec::new(),
                    computed: Vec::new(),
                })
                .collect();
            for (list, fine) in [(contacts, true), (coarse, false)] {
                for c in list {
                    let other = match c.b {
                        Other::Particle(j) => j as usize,
                        Other::Obstacle(_) => 0,
                    };
                    let owner = match (self.core.owner.get(c.a as usize), other < n) {
                        (Some(&r), true) if (r as usize) < size => r as usize,
                        _ => {
                            return Err(self.core.fail(
                                state,
                                format!(
                                    "restart: the checkpoint carries a contact of particles \
                                     {} and {:?}, not of this run",
                                    c.a, c.b
                                ),
                            ))
                        }
                    };
                    match fine {
                        true => shares[owner].contacts.push(c),
                        false => shares[owner].coarse.push(c),
                    }
                }
            }
            for (k, w) in computed.into_iter().enumerate() {
                let r = self.core.owner[k] as usize;
                if let Some(share) = shares.get_mut(r) {
                    share.computed.push((k as u32, w));
                }
            }
            for (r, share) in shares.iter().enumerate().skip(1) {
                out[r] = encode(share);
            }
            let mine = shares.swap_remove(0);
            self.take_share(n, mine);
        }
        let got = self.core.swap(state, &out)?;
        if self.core.rank != 0 {
            let share: Share = self.core.decode(state, &got[0], "restart")?;
            if share.computed.iter().any(|&(k, _)| k as usize >= n) {
                return Err(self
                    .core
                    .fail(state, "restart: forces of unknown particles"));
            }
            self.take_share(n, share);
        }
        Ok(())
    }

    /// This rank's share of the restored evaluation into its buffers (`n` particles).
    fn take_share(&mut self, n: usize, share: Share) {
        self.last = share.last;
        self.contacts = share.contacts;
        self.coarse = share.coarse;
        self.computed.clear();
        self.computed.resize(n, Wrench::default());
        for (k, w) in share.computed {
            self.computed[k as usize] = w;
        }
    }

    /// At a checkpoint step, after the migration: every rank's part of the carried
    /// evaluation to rank 0 (`before`: the particles this rank owned during the step),
    /// which assembles the one-process snapshot (module docs).
    pub(super) fn gather_carried(
        &mut self,
        state: &State,
        before: &[u32],
    ) -> Result<Option<Assembled>, StepError> {
        let size = self.core.size as usize;
        let part = Part {
            pairs: self.last.map_or(0, |(_, _, p)| p),
            contacts: keyed(&self.contacts),
            coarse: keyed(&self.coarse),
            computed: before
                .iter()
                .map(|&k| {
                    (
                        k,
                        self.computed.get(k as usize).copied().unwrap_or_default(),
                    )
                })
                .collect(),
        };
        let mut out = vec![Vec::new(); size];
        if self.core.rank != 0 {
            out[0] = encode(&part);
        }
        let sent = self.core.traffic.bytes_sent;
        let got = self.core.swap(state, &out)?;
        self.core.traffic.bytes_gathered += self.core.traffic.bytes_sent - sent;
        if self.core.rank != 0 {
            return Ok(None);
        }
        let mut parts = vec![part];
        for (src, m) in got.iter().enumerate().skip(1) {
            parts.push(
                self.core
                    .decode(state, m, &format!("checkpoint from rank {src}"))?,
            );
        }
        let n = state.bodies.len();
        let mut pairs = 0u32;
        let (mut contacts, mut coarse) = (Vec::new(), Vec::new());
        let mut computed = vec![Wrench::default(); n];
        for p in parts {
            pairs = pairs.saturating_add(p.pairs);
            contacts.extend(p.contacts);
            coarse.extend(p.coarse);
            for (k, w) in p.computed {
                match computed.get_mut(k as usize) {
                    Some(slot) => *slot = w,
                    None => {
                        return Err(self
                            .core
                            .fail(state, format!("checkpoint: particle {k} does not exist")))
                    }
                }
            }
        }
        // The one-process order: by key (a pair's contacts all come from its owner).
        contacts.sort_by_key(|&(k, _)| k);
        coarse.sort_by_key(|&(k, _)| k);
        Ok(Some(Assembled {
            last: self.last.map(|(_, dt, _)| (pairs, dt)),
            contacts: contacts.into_iter().map(|(_, c)| c).collect(),
            coarse: coarse.into_iter().map(|(_, c)| c).collect(),
            computed,
        }))
    }
}
