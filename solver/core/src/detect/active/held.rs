//! Narrowing vetoes *held* across steps by an in-margin slack (issue 19: the detection
//! after a large step).
//!
//! A narrowing attempt checks the parent of an idle sibling group (`walk.rs`); a parent
//! found in contact is vetoed for the rest of the step (see the parent module's docs).
//! Vetoes are forgotten at every step, and a refresh of the certificates attempts every
//! idle group again: after a step longer than the skin — every step at ten times the
//! explicit `dt` — each such parent is checked again, and almost all of them are still in
//! contact (a resting grain's surrogate nodes overlap the floor while every child pair is
//! apart). Measured on the hopper at 10× the explicit `dt` (midpoint rule, first second):
//! 252 narrowing attempts per detection, 15 of them narrowing, out of 628 kernel calls.
//!
//! A failed attempt's kernel call found the parent in contact with a computed distance
//! `d` ≤ its check margin `M` (an upper bound of the true distance up to rounding: the
//! closest points lie on the elements). Its slack `M − d − ρ − m₁·(1 + s)` (the real
//! pairs' in-margin slack, [`super::certify::slack`], with the same rounding allowance
//! ρ) is kept with the pair's key, relative to the set's base pose, and shrinks with every
//! rebase as the clearances do. While B moved less than the slack from the base
//! ([`super::certify::certified`]), the parent's distance is below `M − ρ`: the iterative
//! kernel cannot answer "separated" (that needs a lower bound above `M`) and the exact
//! kernel (also the fallback of a not converged answer) finds its computed distance within
//! `M`. A second check is certain to answer "in contact", so the attempt is vetoed without
//! it — the same decision, hence the same cut, narrowings, widenings and contacts as
//! checking it; only the check counts differ. Entries whose slack ran out are dropped at
//! a rebase; an entry of a pair that left the cut stays true (it is a property of the two
//! elements at the base pose) until its slack runs out.
//!
//! The entries are part of the set's state (and of a checkpoint): a restarted run makes the
//! same checks as the uninterrupted one.

use super::certify::certified;

/// Held vetoes: (packed key of the parent pair, slack \[m\] relative to the base pose),
/// sorted by key.
pub(super) type Held = Vec<(u64, f32)>;

/// Whether the entry of `k` certifies the parent still in contact after a motion of at
/// most `m` \[m\] from the base pose.
pub(super) fn holds(held: &Held, k: u64, m: f64) -> bool {
    match held.binary_search_by_key(&k, |e| e.0) {
        Ok(i) => certified(held[i].1, m),
        Err(_) => false,
    }
}

/// Records (or replaces) the slack of `k`; a slack that certifies nothing removes it.
pub(super) fn record(held: &mut Held, k: u64, slack: f32) {
    let pos = held.binary_search_by_key(&k, |e| e.0);
    match (pos, slack > 0.0) {
        (Ok(i), true) => held[i].1 = slack,
        (Ok(i), false) => {
            held.remove(i);
        }
        (Err(i), true) => held.insert(i, (k, slack)),
        (Err(_), false) => {}
    }
}

/// Removes the entry of `k` (the parent was found separated).
pub(super) fn forget(held: &mut Held, k: u64) {
    if let Ok(i) = held.binary_search_by_key(&k, |e| e.0) {
        held.remove(i);
    }
}

/// Moves the entries to a new base pose reached after a motion `d` \[m\] (rounded up
/// by the caller): every slack shrinks by `d` and by the relative rounding allowance
/// `rounding`; entries left without slack are dropped.
pub(super) fn rebase(held: &mut Held, d: f32, rounding: f32) {
    held.retain_mut(|e| {
        e.1 = e.1 - d - rounding * e.1.abs();
        e.1 > 0.0
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries certify only within their slack, shrink with a rebase and disappear when
    /// their slack runs out.
    #[test]
    fn held_entries_follow_their_slack() {
        let mut h = Held::new();
        record(&mut h, 7, 0.01);
        record(&mut h, 3, 0.002);
        record(&mut h, 5, -1.0);
        assert_eq!(h.iter().map(|e| e.0).collect::<Vec<_>>(), [3, 7]);
        assert!(holds(&h, 7, 0.009));
        assert!(!holds(&h, 7, 0.0101));
        assert!(!holds(&h, 5, 0.0));
        rebase(&mut h, 0.004, 0.0);
        assert_eq!(h.len(), 1);
        assert!(holds(&h, 7, 0.005));
        assert!(!holds(&h, 7, 0.0061));
        forget(&mut h, 7);
        assert!(h.is_empty());
    }
}
