//! Contact values of one pair of materials that override the default combination rule
//! (`material_pairs:` in the scenario; rule in [`crate::contact::pair`]).

/// The values a scenario sets for one pair of materials; `None` keeps the default rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialPair {
    /// The two material indices, `materials.0 ≤ materials.1`.
    pub materials: (u32, u32),
    /// Coefficient of restitution e in (0, 1] [-].
    pub restitution: Option<f64>,
    /// Coulomb friction coefficient μ [-].
    pub friction: Option<f64>,
    /// Rolling friction coefficient μ_r [-] (Hertz–Mindlin pairs).
    pub rolling_friction: Option<f64>,
}

/// The entry of `pairs` for materials `a` and `b` (either order), if any.
pub fn find_pair(pairs: &[MaterialPair], a: u32, b: u32) -> Option<&MaterialPair> {
    let key = (a.min(b), a.max(b));
    pairs.iter().find(|p| p.materials == key)
}
