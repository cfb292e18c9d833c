//! Substep 1 of a sweep (seed 004 §3): the particles' space-time tubes, the pairs of the
//! pruned graph and the obstacles each tube reaches. The first sweep of an interval (and
//! any sweep after most particles advanced) searches every pair with the HGrid of
//! `msdem-broadphase`; the other sweeps renew only the tubes of the particles that advanced
//! and search only their pairs in the incremental [`super::swept_grid::SweptGrid`].

use rayon::prelude::*;

use super::tube::{tube, tubes_meet, Tube};
use super::LocalTimeStepping;
use crate::detect::broad::{outer_radius, sphere_touches_aabb};
use crate::error::StepError;
use crate::model::Model;
use crate::state::Body;
use msdem_broadphase::{BroadPhaseKind, HGridConfig};
use msdem_geom::math::Vec3;

impl LocalTimeStepping {
    /// The tube of particle `p` from `max(t⁻, t_floor)` (`t_floor`: the global minimum time
    /// stamp when the tube is built — no rollback reaches before it) to its span's end,
    /// at most `t_end` (eq. (3)).
    fn make_tube(&self, model: &Model, p: usize, body: &Body, t_floor: f64, t_end: f64) -> Tube {
        let (dt, c) = (self.dt, self.params.span_memory);
        let tl = &self.timelines[p];
        let t = tl.cur.time;
        let last = if tl.last_step() > 0.0 {
            tl.last_step()
        } else {
            dt
        };
        let span = c * dt + (1.0 - c) * last;
        let hi = if t >= t_end || t + span >= t_end {
            t_end
        } else {
            t + span
        };
        let lo = tl.prev.time.max(t_floor).min(t);
        tube(tl, lo, hi, outer_radius(model, body), &self.gravity)
    }

    fn obstacles_reached(model: &Model, t: &Tube, out: &mut Vec<u32>) {
        out.clear();
        let c = Vec3::from(t.bound.center);
        for (o, ob) in model.obstacles.iter().enumerate() {
            if sphere_touches_aabb(&c, t.bound.radius, &ob.aabb) {
                out.push(o as u32);
            }
        }
    }

    /// Every confirmed pair from scratch: HGrid candidates on the tubes' spheres, then the
    /// hose test; into `out`, ascending.
    fn all_pairs(&mut self, step: u64, out: &mut Vec<(u32, u32)>) -> Result<(), StepError> {
        let slot = match self.broad.get_mut() {
            Ok(slot) => slot,
            Err(poisoned) => poisoned.into_inner(),
        };
        let broad = match slot {
            Some(b) => b,
            slot => {
                // Tube radii change in every sweep: a single level (the automatic levels
                // would be re-planned in every sweep) and no Verlet skin.
                let kind = BroadPhaseKind::HGrid(HGridConfig {
                    levels: Some(1),
                    skin: 0.0,
                    ..HGridConfig::default()
                });
                let built = kind
                    .build()
                    .map_err(|source| StepError::BroadPhase { step, source })?;
                slot.insert(built)
            }
        };
        broad
            .find_pairs(&self.spheres, &mut self.candidates)
            .map_err(|source| StepError::BroadPhase { step, source })?;
        let (tl, tubes, g) = (&self.timelines, &self.tubes, self.gravity);
        let keep: Vec<bool> = self
            .candidates
            .par_iter()
            .with_min_len(256)
            .map(|&(a, b)| {
                let (a, b) = (a as usize, b as usize);
                tubes_meet(&tl[a], &tubes[a], &tl[b], &tubes[b], &g)
            })
            .collect();
        out.clear();
        out.extend(
            self.candidates
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(p, _)| *p),
        );
        Ok(())
    }

    /// Substep 1: tubes, candidate pairs, hose checks, obstacles per particle. The first
    /// sweep of an interval (and any sweep after most particles advanced) builds everything;
    /// other sweeps renew only the tubes of the particles that advanced and search only
    /// their pairs in an incremental grid. A kept tube starts at the minimum time stamp of
    /// when it was built, which is no later than today's: a conservative window. The pairs
    /// equal those of a search from scratch over the same tubes (checked with
    /// [`LocalTimeStepping::set_checks`]).
    pub(super) fn broad_phase(
        &mut self,
        model: &Model,
        bodies: &[Body],
        t_min: f64,
        t_end: f64,
        step: u64,
    ) -> Result<(), StepError> {
        let n = bodies.len();
        let g = self.gravity;
        let moved = self
            .versions
            .iter()
            .zip(&self.tube_versions)
            .filter(|(v, t)| v != t)
            .count();
        // Where most particles advanced (always in global steps) a rebuild is cheaper than
        // the incremental updates; both give the same pairs.
        if self.tube_interval != t_end || self.tubes.len() != n || 4 * moved > n {
            let tubes: Vec<Tube> = (0..n)
                .map(|p| self.make_tube(model, p, &bodies[p], t_min, t_end))
                .collect();
            self.tubes = tubes;
            self.tube_versions.clone_from(&self.versions);
            self.spheres.clear();
            self.spheres.extend(self.tubes.iter().map(|t| t.bound));
            let mut confirmed = std::mem::take(&mut self.confirmed);
            self.all_pairs(step, &mut confirmed)?;
            self.confirmed = confirmed;
            self.grid_stale = true;
            self.reach.resize_with(n, Vec::new);
            for p in 0..n {
                Self::obstacles_reached(model, &self.tubes[p], &mut self.reach[p]);
            }
            self.tube_interval = t_end;
            return Ok(());
        }
        self.changed.clear();
        self.changed.extend(
            (0..n as u32).filter(|&p| self.versions[p as usize] != self.tube_versions[p as usize]),
        );
        if self.changed.is_empty() {
            return Ok(());
        }
        if self.grid_stale {
            self.grid.rebuild(&self.spheres);
            self.grid_stale = false;
        }
        let mut flag = std::mem::take(&mut self.flag);
        flag.clear();
        flag.resize(n, false);
        let changed = std::mem::take(&mut self.changed);
        for &p in &changed {
            let pu = p as usize;
            flag[pu] = true;
            self.tubes[pu] = self.make_tube(model, pu, &bodies[pu], t_min, t_end);
            self.tube_versions[pu] = self.versions[pu];
            self.spheres[pu] = self.tubes[pu].bound;
            self.grid.update(p, self.spheres[pu]);
            Self::obstacles_reached(model, &self.tubes[pu], &mut self.reach[pu]);
        }
        self.confirmed
            .retain(|&(a, b)| !flag[a as usize] && !flag[b as usize]);
        let mut fresh: Vec<(u32, u32)> = Vec::new();
        let mut near = std::mem::take(&mut self.near);
        for &p in &changed {
            self.grid.query(p, &mut near);
            for &q in &near {
                if flag[q as usize] && q < p {
                    continue; // found from q's side
                }
                let (a, b) = (p.min(q) as usize, p.max(q) as usize);
                let (tl, tubes) = (&self.timelines, &self.tubes);
                if tubes_meet(&tl[a], &tubes[a], &tl[b], &tubes[b], &g) {
                    fresh.push((a as u32, b as u32));
                }
            }
        }
        fresh.sort_unstable();
        fresh.dedup();
        let kept = std::mem::take(&mut self.confirmed);
        let mut merged = Vec::with_capacity(kept.len() + fresh.len());
        let (mut i, mut j) = (0, 0);
        while i < kept.len() || j < fresh.len() {
            if j == fresh.len() || (i < kept.len() && kept[i] < fresh[j]) {
                merged.push(kept[i]);
                i += 1;
            } else {
                merged.push(fresh[j]);
                j += 1;
            }
        }
        self.confirmed = merged;
        self.near = near;
        self.changed = changed;
        self.flag = flag;
        if self.checks {
            let mut full = Vec::new();
            self.all_pairs(step, &mut full)?;
            if full != self.confirmed {
                self.violations.push(format!(
                    "incremental broad phase: {} pairs, from scratch {}",
                    self.confirmed.len(),
                    full.len()
                ));
            }
        }
        Ok(())
    }
}
