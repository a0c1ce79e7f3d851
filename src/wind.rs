//! Wind that varies in space and time: a mean velocity plus gusts ([`Gust`]), the same at a
//! given place and time for a given seed.

use crate::math::{LaneVec, Lanes, Real, Vec3, sin_turns};
use crate::validate::{self, Checked};
use std::f32::consts::TAU;

/// Gusts on top of the mean wind: three travelling waves carried downwind by the mean wind
/// (Taylor's frozen turbulence), one along the mean wind and two across it, each with its own
/// period and phase drawn from `seed`.
///
/// At point `x` and time `t` the wind is `mean + amplitude Σₖ aₖ eₖ sin(2π (t / Tₖ − m̂·x / λₖ)
/// + φₖ)`, with `m̂` the mean wind's direction (x when there is none), `e₀ = m̂`, `a₀ = 1`, `e₁`,
/// `e₂` unit vectors across `m̂` at a random angle, `a₁ = a₂ = ½`, `Tₖ` = `period` times a factor
/// in [0.6, 1.4), `λₖ` = `wavelength` times another, and `φₖ` in [0, 2π). The along-wind gust
/// reaches `amplitude`; the wind averages to `mean` over time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gust {
    /// Peak of the along-wind gust, m/s (the crosswind gusts reach half of it).
    pub amplitude: Real,
    /// Typical period of the gusts, s.
    pub period: Real,
    /// Typical spatial wavelength of the gusts along the wind, m.
    pub wavelength: Real,
    /// Seed of the periods, wavelengths, phases and directions.
    pub seed: u64,
}

/// One travelling wave of a [`Gust`].
struct Wave {
    direction: Vec3,
    weight: Real,
    period: Real,
    wavelength: Real,
    phase: Real,
}

/// The SplitMix64 generator (Steele, Lea and Flood 2014): a seed's stream of numbers in [0, 1).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> Real {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 40) as Real / (1u64 << 24) as Real
    }
}

impl Gust {
    /// Checks every field (keys as in a scene's `[solver] wind` table).
    pub fn validate(&self) -> Checked {
        validate::non_negative(self.amplitude, "wind.amplitude")?;
        validate::positive(self.period, "wind.period", "a time in s")?;
        validate::positive(self.wavelength, "wind.wavelength", "a length in m")?;
        Ok(())
    }

    /// The three waves for a mean wind of direction `along` (unit).
    fn waves(&self, along: Vec3) -> [Wave; 3] {
        let mut rng = SplitMix(self.seed);
        let across = along.cross(&Vec3::y());
        let across = if across.norm() > 1e-3 {
            across.normalize()
        } else {
            along.cross(&Vec3::x()).normalize()
        };
        let up = along.cross(&across);
        std::array::from_fn(|k| {
            let direction = if k == 0 {
                along
            } else {
                let a = rng.next() * TAU;
                across * a.cos() + up * a.sin()
            };
            Wave {
                direction,
                weight: if k == 0 { 1.0 } else { 0.5 },
                period: self.period * (0.6 + 0.8 * rng.next()),
                wavelength: self.wavelength * (0.6 + 0.8 * rng.next()),
                phase: rng.next() * TAU,
            }
        })
    }
}

/// The wind at one time: the mean wind and its gusts' waves, drawn once for every point the
/// wind is asked at.
pub struct WindField {
    mean: Vec3,
    along: Vec3,
    /// The gusts' waves, each as `amplitude aₖ eₖ`, `1 / λₖ` and its phase in turns at `x = 0`
    /// (`t / Tₖ + φₖ / 2π`).
    gust: Option<[(Vec3, Real, Real); 3]>,
}

impl WindField {
    /// The wind `mean` (m/s), plus `gust` when there is one, at time `time` (s).
    pub fn new(mean: Vec3, gust: Option<&Gust>, time: Real) -> Self {
        let along = if mean.norm() > 0.0 {
            mean.normalize()
        } else {
            Vec3::x()
        };
        let gust = gust.map(|g| {
            g.waves(along).map(|w| {
                let turns = time / w.period + w.phase / TAU;
                (
                    w.direction * (g.amplitude * w.weight),
                    1.0 / w.wavelength,
                    turns,
                )
            })
        });
        WindField { mean, along, gust }
    }

    /// The wind velocity at point `x` (m), m/s.
    #[inline]
    pub fn at(&self, x: Vec3) -> Vec3 {
        self.at_lanes(LaneVec::from(x)).into()
    }

    /// [`WindField::at`] for one point or one per lane: the sum of the mean and of
    /// `amplitude aₖ eₖ sin(2π (t / Tₖ − m̂·x / λₖ) + φₖ)` ([`sin_turns`]).
    #[inline(always)]
    pub fn at_lanes<T: Lanes>(&self, x: LaneVec<T>) -> LaneVec<T> {
        let splat = |v: Vec3| LaneVec([T::splat(v.x), T::splat(v.y), T::splat(v.z)]);
        let mut w = splat(self.mean);
        if let Some(waves) = &self.gust {
            let downwind = x.dot(splat(self.along));
            for &(direction, inv_wavelength, turns) in waves {
                let q = T::splat(turns) - downwind * T::splat(inv_wavelength);
                w = w + splat(direction) * sin_turns(q);
            }
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gust(seed: u64) -> Gust {
        Gust {
            amplitude: 2.0,
            period: 1.5,
            wavelength: 4.0,
            seed,
        }
    }

    #[test]
    fn gusts_average_to_the_mean_and_peak_at_the_amplitude_along_the_wind() {
        let (mean, g) = (Vec3::new(5.0, 0.0, 1.0), gust(7));
        let x = Vec3::new(0.3, 1.0, -0.2);
        let n = 200_000;
        let samples: Vec<Vec3> = (0..n)
            .map(|k| WindField::new(mean, Some(&g), k as Real * 0.01).at(x))
            .collect();
        let average = samples.iter().sum::<Vec3>() / n as Real;
        // 2,000 s holds over 900 periods: what is left of the sines is under 1/900 of them.
        assert!((average - mean).norm() < 2.0 * 2.0 / 900.0, "{average}");
        let along = mean.normalize();
        let peak = samples
            .iter()
            .map(|w| (w - mean).dot(&along))
            .fold(0.0, Real::max);
        // The along-wind wave reaches 2; the crosswind ones add nothing along the wind.
        assert!((peak - 2.0).abs() < 1e-3, "peak {peak}");
    }

    #[test]
    fn the_same_seed_gives_the_same_wind_and_another_seed_another() {
        let (mean, x, t) = (Vec3::x() * 4.0, Vec3::new(1.0, 2.0, 3.0), 12.5);
        let at = |g: Option<&Gust>| WindField::new(mean, g, t).at(x);
        let w = at(Some(&gust(1)));
        assert_eq!(w, at(Some(&gust(1))));
        assert_ne!(w, at(Some(&gust(2))));
        assert_eq!(at(None), mean);
    }
}
