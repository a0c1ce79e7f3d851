//! The wall time of each stage of a step: the report's `stage_ms`, the benchmarks' CSV columns.

use crate::constraints::registry::{FAMILIES, FAMILY_COUNT};
use serde::Serialize;
use std::time::Instant;

/// A part of [`World::step`](crate::World::step) whose wall time [`StageMs`] holds. Every
/// moment of a step belongs to one stage: a stage's time runs from the end of the one timed
/// before it to its own end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Bookkeeping of the frame and of each substep: collider motions, the materials'
    /// coefficients, the multipliers' reset, the thread team.
    Setup,
    /// External forces (gravity, wind).
    Forces,
    /// Damping.
    Damping,
    /// Predicted positions.
    Predict,
    /// Collision detection: the swept test, contacts with colliders and between particles.
    CollisionDetection,
    /// The projection of the constraint family at this place of the
    /// [registry](crate::constraints::registry), named after it.
    Family(usize),
    /// Copying positions into the projection's packed slots and back (and the Jacobi solver's
    /// per-iteration sums and extrapolation).
    Pack,
    /// Velocities, friction and restitution.
    Velocities,
    /// The end-of-frame check for non-finite positions and divergence.
    Check,
}

/// The stages before the families.
const BEFORE: [&str; 5] = [
    "setup",
    "forces",
    "damping",
    "predict",
    "collision_detection",
];

/// The stages after the first [`FIRST_FAMILIES`] families.
const AFTER: [&str; 3] = ["pack", "velocities", "check"];

/// The families whose columns come before [`AFTER`]'s; the families registered after them
/// come after it, so that every column keeps its place as families are added.
const FIRST_FAMILIES: usize = 11;

/// How many stages a step has.
const STAGES: usize = BEFORE.len() + FAMILY_COUNT + AFTER.len();

impl Stage {
    /// The stage's column in [`StageMs`].
    fn column(self) -> usize {
        let (before, after) = (BEFORE.len(), AFTER.len());
        match self {
            Stage::Setup => 0,
            Stage::Forces => 1,
            Stage::Damping => 2,
            Stage::Predict => 3,
            Stage::CollisionDetection => 4,
            Stage::Family(i) if i < FIRST_FAMILIES => before + i,
            Stage::Family(i) => before + after + i,
            Stage::Pack => before + FIRST_FAMILIES,
            Stage::Velocities => before + FIRST_FAMILIES + 1,
            Stage::Check => before + FIRST_FAMILIES + 2,
        }
    }
}

/// Wall time of each stage of one frame's step, ms, summed over the substeps and iterations;
/// the stages add up to the step's time ([`World::stage_ms`](crate::World::stage_ms)). The
/// stages are `setup`, `forces`, `damping`, `predict`, `collision_detection`, one per
/// constraint family of the [registry](crate::constraints::registry) named after it (the
/// projection of that family), `pack`, `velocities` and `check`, in the order of
/// [`StageMs::names`]. Serialized as an object keyed by name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageMs([f64; STAGES]);

impl Default for StageMs {
    fn default() -> Self {
        StageMs([0.0; STAGES])
    }
}

impl StageMs {
    /// The name of every stage, in order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        let families = FAMILIES.iter().map(|f| f.name);
        let first = families.clone().take(FIRST_FAMILIES);
        let rest = families.skip(FIRST_FAMILIES);
        BEFORE.into_iter().chain(first).chain(AFTER).chain(rest)
    }

    /// The time of the stage named `name`, ms (`None` for no such stage).
    pub fn get(&self, name: &str) -> Option<f64> {
        Self::names().position(|n| n == name).map(|i| self.0[i])
    }

    /// Every stage's name and time, ms, in the order of [`StageMs::names`].
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        Self::names().zip(self.0.iter().copied())
    }

    /// The time of every stage, ms.
    pub fn total(&self) -> f64 {
        self.0.iter().sum()
    }
}

impl Serialize for StageMs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// Times the stages of a step: each [`lap`](StageClock::lap) gives the time since the previous
/// one (or the start) to a stage. One clock read per stage, so it is cheap enough to stay on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StageClock {
    last: Instant,
    ms: StageMs,
}

impl StageClock {
    /// A clock started now, every stage at 0.
    pub(crate) fn start() -> Self {
        StageClock {
            last: Instant::now(),
            ms: StageMs::default(),
        }
    }

    /// Gives the time since the previous lap to `stage`.
    pub(crate) fn lap(&mut self, stage: Stage) {
        let now = Instant::now();
        self.ms.0[stage.column()] += 1e3 * (now - self.last).as_secs_f64();
        self.last = now;
    }

    /// The times so far.
    pub(crate) fn ms(&self) -> StageMs {
        self.ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_has_its_own_column_and_name() {
        let stages = [Stage::Setup, Stage::Forces, Stage::Damping, Stage::Predict]
            .into_iter()
            .chain([Stage::CollisionDetection])
            .chain((0..FAMILY_COUNT).map(Stage::Family))
            .chain([Stage::Pack, Stage::Velocities, Stage::Check]);
        let mut columns: Vec<usize> = stages.map(Stage::column).collect();
        columns.sort_unstable();
        assert_eq!(columns, (0..STAGES).collect::<Vec<_>>());
        let mut names: Vec<&str> = StageMs::names().collect();
        assert_eq!(names.len(), STAGES);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), STAGES, "a name given twice");
        assert_eq!(StageMs::names().nth(Stage::Check.column()), Some("check"));
        let last = Stage::Family(FAMILY_COUNT - 1).column();
        assert_eq!(StageMs::names().nth(last), FAMILIES.last().map(|f| f.name));
    }

    #[test]
    fn a_lap_goes_to_the_stage_named_after_it() {
        let mut clock = StageClock::start();
        std::thread::sleep(std::time::Duration::from_millis(2));
        clock.lap(Stage::Family(0));
        let ms = clock.ms();
        assert!(ms.get(FAMILIES[0].name).unwrap() >= 2.0);
        assert_eq!(ms.get("setup"), Some(0.0));
        assert_eq!(ms.get("no such stage"), None);
        assert_eq!(ms.total(), ms.get(FAMILIES[0].name).unwrap());
    }
}
