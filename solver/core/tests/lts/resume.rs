//! Resuming from the integrator's carried state (issue 12: LTS checkpoints): an integrator
//! restored from another's snapshot after any interval continues bit for bit as the
//! uninterrupted one (states and statistics), while a fresh integrator on the same state
//! does not (the previous snapshots of seed 004 eq. (3), the warm-start impulses and the
//! narrowing's witnesses matter); the bytes round-trip, damaged ones are refused.

use crate::scenes::{gas_world, stack_world};
use msdem_solver::frames::lts::LtsStepStats;
use msdem_solver::integrator::lts::{LocalTimeStepping, LtsMode};
use msdem_solver::integrator::Integrator;
use msdem_solver::world::World;

fn bits(w: &World) -> Vec<u64> {
    w.state
        .bodies
        .iter()
        .flat_map(|b| {
            b.position
                .iter()
                .chain(b.velocity.iter())
                .chain(b.angular_velocity.iter())
                .chain(b.orientation.coords.iter())
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Split {
    None,
    /// After the given interval, continue with a new integrator restored from the
    /// snapshot.
    Restored(usize),
    /// After the given interval, continue with a new integrator that starts fresh.
    Fresh(usize),
}

fn go(
    world: &World,
    mode: LtsMode,
    intervals: usize,
    split: Split,
) -> (Vec<u64>, Vec<LtsStepStats>) {
    let mut w = world.clone();
    let mut lts = LocalTimeStepping::new(&w.params, mode);
    let mut stats = Vec::new();
    for k in 0..intervals {
        match split {
            Split::Restored(at) if at == k => {
                let bytes = Integrator::snapshot(&lts);
                let mut next = LocalTimeStepping::new(&w.params, mode);
                Integrator::restore(&mut next, &bytes).unwrap();
                assert_eq!(Integrator::snapshot(&next), bytes, "the bytes round-trip");
                lts = next;
            }
            Split::Fresh(at) if at == k => lts = LocalTimeStepping::new(&w.params, mode),
            _ => {}
        }
        let (s, _) = lts
            .advance_interval(&w.model, &mut w.state)
            .unwrap_or_else(|e| panic!("{e}"));
        stats.push(s);
    }
    (bits(&w), stats)
}

#[test]
fn a_restored_integrator_continues_bit_for_bit_and_a_fresh_one_does_not() {
    let scenes: [(&str, World, usize); 2] = [
        ("gas", gas_world(6, 9, 0.05, 0.3).0, 6),
        ("stack", stack_world(4, 1e-3, 0.03).0, 30),
    ];
    for (name, world, intervals) in scenes {
        for mode in [LtsMode::Local, LtsMode::Global] {
            let reference = go(&world, mode, intervals, Split::None);
            let mut fresh_differs = 0;
            for at in 1..intervals {
                let resumed = go(&world, mode, intervals, Split::Restored(at));
                assert!(
                    resumed == reference,
                    "{name} {mode:?}: resumed after interval {at} differs"
                );
                fresh_differs +=
                    usize::from(go(&world, mode, intervals, Split::Fresh(at)) != reference);
            }
            eprintln!(
                "{name} {mode:?}: a fresh integrator differs after {fresh_differs} of {} splits",
                intervals - 1
            );
            assert!(
                fresh_differs > 0,
                "{name} {mode:?}: the carried state never mattered"
            );
        }
    }
}

#[test]
fn damaged_carried_state_is_refused_naming_the_integrator() {
    let (mut world, _) = stack_world(2, 1e-3, 0.01);
    let mut lts = LocalTimeStepping::new(&world.params, LtsMode::Local);
    lts.advance_interval(&world.model, &mut world.state)
        .unwrap();
    let bytes = Integrator::snapshot(&lts);
    let mut other = LocalTimeStepping::new(&world.params, LtsMode::Local);
    let e = Integrator::restore(&mut other, &bytes[..bytes.len() / 2]).unwrap_err();
    assert!(e.starts_with("local_time_stepping: carried state"), "{e}");
    let mut foreign = bytes.clone();
    foreign[0] = 7; // the format version (postcard varint)
    let e = Integrator::restore(&mut other, &foreign).unwrap_err();
    assert_eq!(
        e,
        "local_time_stepping: carried state of format version 7, this build reads 1"
    );
}
