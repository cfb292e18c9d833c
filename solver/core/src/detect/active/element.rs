//! Element pairs of an active set (seed 000 Alg. 6, remark 6): the elements (surrogate
//! node or real triangle), packed pair keys, check outcomes and the stored leaves of a cut
//! with their clearances.

/// One side of an active pair: an internal tree node (its surrogate triangle) or a real
/// triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// Node index (surrogate) or soup index (real triangle).
    pub index: u32,
    /// Tree level (a real triangle has the level of its leaf).
    pub level: u32,
    /// True for a real mesh triangle.
    pub real: bool,
}

impl Element {
    pub(super) fn packed(&self) -> u32 {
        self.index << 1 | u32::from(self.real)
    }

    pub(super) fn unpack(p: u32, level: u8) -> Element {
        Element {
            index: p >> 1,
            level: u32::from(level),
            real: p & 1 == 1,
        }
    }
}

/// Packed key of an element pair (A's element in the high half).
pub(super) fn key(a: Element, b: Element) -> u64 {
    u64::from(a.packed()) << 32 | u64::from(b.packed())
}

/// Result of the last check of an active pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum Outcome {
    /// Not checked yet (fresh after a widening or a refresh).
    Unchecked,
    /// Surrogate pair separated: the subtrees cannot touch.
    Separated,
    /// Surrogate pair in contact or not converged: widen.
    Widen,
    /// Real–real pair in contact.
    FineContact,
    /// Real–real pair without contact.
    FineNone,
}

impl Outcome {
    /// Contributes nothing (a narrowing candidate).
    pub(super) fn idle(self) -> bool {
        matches!(self, Outcome::Separated | Outcome::FineNone)
    }

    /// The outcome of a certified pair.
    pub(super) fn certain(a: Element, b: Element) -> Outcome {
        if a.real && b.real {
            Outcome::FineNone
        } else {
            Outcome::Separated
        }
    }
}

/// An active pair stored with its clearance (`f32::NEG_INFINITY`: none).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Leaf {
    pub(super) a: u32,
    pub(super) b: u32,
    pub(super) clear: f32,
    pub(super) la: u8,
    pub(super) lb: u8,
    pub(super) state: Outcome,
    /// Bit 0: became idle in this iteration's check (a narrowing trigger).
    pub(super) flags: u8,
    /// In-margin slack of a real pair in contact \[m\] (`certify.rs`, [`super::certify::slack`]):
    /// the pair stays within its margin while the motion from the base pose stays below
    /// it; `-inf`: none. Not serialised (a set read back holds none, which certifies
    /// nothing).
    #[serde(skip, default = "no_slack")]
    pub(super) slack: f32,
}

fn no_slack() -> f32 {
    f32::NEG_INFINITY
}

impl Leaf {
    pub(super) fn new(a: Element, b: Element, clear: f32, state: Outcome) -> Leaf {
        Leaf {
            a: a.packed(),
            b: b.packed(),
            clear,
            la: a.level.min(255) as u8,
            lb: b.level.min(255) as u8,
            state,
            flags: 0,
            slack: f32::NEG_INFINITY,
        }
    }

    pub(super) fn key(&self) -> u64 {
        u64::from(self.a) << 32 | u64::from(self.b)
    }

    pub(super) const NOW_IDLE: u8 = 1;

    pub(super) fn set_flag(&mut self, bit: u8, on: bool) {
        self.flags = if on {
            self.flags | bit
        } else {
            self.flags & !bit
        };
    }

    /// Became idle in this iteration's check.
    pub(super) fn now_idle(&self) -> bool {
        self.flags & Self::NOW_IDLE != 0
    }

    pub(super) fn set_now_idle(&mut self, on: bool) {
        self.set_flag(Self::NOW_IDLE, on);
    }

    pub(super) fn elements(&self) -> (Element, Element) {
        (
            Element::unpack(self.a, self.la),
            Element::unpack(self.b, self.lb),
        )
    }
}
