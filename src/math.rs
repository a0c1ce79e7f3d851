//! Scalar and vector types of the simulation (nalgebra; the viewer converts to glam at its boundary).

use wide::f32x4;

/// The simulation's scalar: `f32`, for cache-friendly particle arrays.
pub type Real = f32;
/// A 3-vector in metres (positions), m/s (velocities) or unitless (normals).
pub type Vec3 = nalgebra::Vector3<Real>;
/// A 3x3 matrix.
pub type Mat3 = nalgebra::Matrix3<Real>;
/// A rotation.
pub type Quat = nalgebra::UnitQuaternion<Real>;

/// What the projection kernels compute with: one [`Real`], or a SIMD vector of
/// [`LANES`](crate::solver::LANES) of them (`wide::f32x8`), one constraint per lane. Writing a
/// kernel's arithmetic once over `Lanes` gives the scalar and the batched projections the same
/// operations in the same order, so the same bits.
pub trait Lanes:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    /// Every lane `x`.
    fn splat(x: Real) -> Self;
    /// Square root, lane by lane.
    fn sqrt(self) -> Self;
    /// `if self > bound { then } else { otherwise }`, lane by lane (`otherwise` for NaN).
    fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self;
    /// Absolute value, lane by lane (clears the sign bit).
    fn abs(self) -> Self;
}

impl Lanes for Real {
    #[inline(always)]
    fn splat(x: Real) -> Self {
        x
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        Real::sqrt(self)
    }

    #[inline(always)]
    fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self {
        if self > bound { then } else { otherwise }
    }

    #[inline(always)]
    fn abs(self) -> Self {
        Real::abs(self)
    }
}

/// [`Lanes`] for a `wide` vector type, from its own methods.
macro_rules! wide_lanes {
    ($t:ty) => {
        impl Lanes for $t {
            #[inline(always)]
            fn splat(x: Real) -> Self {
                <$t>::splat(x)
            }

            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }

            #[inline(always)]
            fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self {
                self.simd_gt(bound).select(then, otherwise)
            }

            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
        }
    };
}
wide_lanes!(wide::f32x8);
wide_lanes!(wide::f32x16);

/// A 3-vector of [`Lanes`]: one vector, or one per lane of a batch (x, y and z each a SIMD
/// vector). Its operations are those of [`Vec3`] in the same order (`dot` and `cross` as
/// nalgebra computes them), so a kernel written over `LaneVec<T>` gives the bits of the same
/// kernel on [`Vec3`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaneVec<T>(pub [T; 3]);

impl<T: Lanes> LaneVec<T> {
    /// The dot product `a·b`.
    #[inline(always)]
    pub fn dot(self, b: Self) -> T {
        let (a, b) = (self.0, b.0);
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    /// The cross product `a × b`.
    #[inline(always)]
    pub fn cross(self, b: Self) -> Self {
        let (a, b) = (self.0, b.0);
        LaneVec([
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ])
    }

    /// `|a|²`.
    #[inline(always)]
    pub fn norm_squared(self) -> T {
        self.dot(self)
    }

    /// `v` in every lane.
    #[inline(always)]
    pub fn splat(v: Vec3) -> Self {
        LaneVec([T::splat(v.x), T::splat(v.y), T::splat(v.z)])
    }
}

/// `v` turned by the unit quaternion `q`, at one point or lane by lane: the bits of nalgebra's
/// `q * v`, `v + w t + q⃗ × t` with `t = 2 q⃗ × v`.
#[inline(always)]
pub fn rotate_lanes<T: Lanes>(q: &Quat, v: LaneVec<T>) -> LaneVec<T> {
    let (axis, w) = (LaneVec::splat(q.imag()), T::splat(q.scalar()));
    let t = axis.cross(v) * T::splat(2.0);
    t * w + axis.cross(t) + v
}

impl<T: Lanes> std::ops::Div<T> for LaneVec<T> {
    type Output = Self;
    /// Divides every coordinate by `s`.
    #[inline(always)]
    fn div(self, s: T) -> Self {
        let a = self.0;
        LaneVec([a[0] / s, a[1] / s, a[2] / s])
    }
}

impl<T: Lanes> std::ops::Add for LaneVec<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        let (a, b) = (self.0, b.0);
        LaneVec([a[0] + b[0], a[1] + b[1], a[2] + b[2]])
    }
}

impl<T: Lanes> std::ops::Sub for LaneVec<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        let (a, b) = (self.0, b.0);
        LaneVec([a[0] - b[0], a[1] - b[1], a[2] - b[2]])
    }
}

impl<T: Lanes> std::ops::Neg for LaneVec<T> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        let a = self.0;
        LaneVec([-a[0], -a[1], -a[2]])
    }
}

impl<T: Lanes> std::ops::Mul<T> for LaneVec<T> {
    type Output = Self;
    /// Scales every coordinate by `s`.
    #[inline(always)]
    fn mul(self, s: T) -> Self {
        let a = self.0;
        LaneVec([a[0] * s, a[1] * s, a[2] * s])
    }
}

impl From<Vec3> for LaneVec<Real> {
    #[inline(always)]
    fn from(v: Vec3) -> Self {
        LaneVec([v.x, v.y, v.z])
    }
}

impl From<LaneVec<Real>> for Vec3 {
    #[inline(always)]
    fn from(v: LaneVec<Real>) -> Self {
        Vec3::new(v.0[0], v.0[1], v.0[2])
    }
}

/// The coefficients `c₀ … c₇` of `atan(t) ≈ t (c₀ + c₁ t² + … + c₇ t¹⁴)` on `0 ≤ t ≤ 1`: a
/// minimax fit of the absolute error (Lawson's iteratively reweighted least squares on 80,000
/// points, in double precision; its error is 3.7e-8 rad before rounding to `f32`).
const ATAN_COEFFS: [Real; 8] = [
    0.999_999_34,
    -0.333_298_6,
    0.199_465_66,
    -0.139_086_29,
    0.096_421_97,
    -0.055_912_327,
    0.021_862_958,
    -0.004_054_567,
];

/// `atan2(y, x)` in `[−π, π]` for one real or lane by lane, from a polynomial rather than a call
/// to the C library: the angle of `(x, y)` from the positive x axis (0 when both are 0).
///
/// The octant is reduced to `t = min(|x|, |y|) / max(|x|, |y|)` in `[0, 1]`, `atan(t)` is the
/// polynomial of `ATAN_COEFFS` (evaluated by Estrin's scheme, so that its chain of dependent
/// operations is four multiply-adds long rather than eight), and the angle is rebuilt as
/// `π/2 − a`, `π − a` and `−a` by selects. The error is at most 4.2e-7 rad: 3.6e-7 rad over
/// every `f32` value of `t` in `[0, 1]` and every rebuild (checked exhaustively against
/// double-precision `atan` when the coefficients were chosen; the tests check a dense sweep of
/// angles), plus at most 6e-8 from the rounding of `t`. Its sign for `y = −0.0` is that of `+0.0`.
#[inline(always)]
pub fn atan2<T: Lanes>(y: T, x: T) -> T {
    let zero = T::splat(0.0);
    let (ax, ay) = (x.abs(), y.abs());
    let steep = ay.select_gt(ax, T::splat(1.0), zero);
    let (num, den) = (steep.select_gt(zero, ax, ay), steep.select_gt(zero, ay, ax));
    let t = den.select_gt(zero, num / den, zero);
    let pair = |i: usize, u: T| T::splat(ATAN_COEFFS[i]) + T::splat(ATAN_COEFFS[i + 1]) * u;
    let u = t * t;
    let u2 = u * u;
    let u4 = u2 * u2;
    let p = (pair(0, u) + pair(2, u) * u2) + (pair(4, u) + pair(6, u) * u2) * u4;
    let a = t * p;
    let a = steep.select_gt(zero, T::splat(std::f32::consts::FRAC_PI_2) - a, a);
    let a = zero.select_gt(x, T::splat(std::f32::consts::PI) - a, a);
    zero.select_gt(y, -a, a)
}

/// `sin(2π q)` for one real or lane by lane, from a polynomial rather than a call to the C
/// library: `q` is reduced to `f = q − round(q)` in `[−½, ½]` (the rounding by adding and
/// subtracting `1.5 · 2²³`, exact for `|q| < 2²²`), reflected into `[−¼, ¼]` (`sin(π − x) =
/// sin x`), and `sin x` for `x = 2π f` in `[−π/2, π/2]` is its Taylor polynomial to `x¹¹`, whose
/// truncation error is below `(π/2)¹³ / 13! = 5.7e-8`; with the `f32` roundings the error is
/// at most 1.8e-7 over the tests' sweep of two million points (about three units in the last
/// place of a result between ½ and 1), which the tests bound by 2e-7.
#[inline(always)]
pub fn sin_turns<T: Lanes>(q: T) -> T {
    let magic = T::splat(12_582_912.0);
    let f = q - ((q + magic) - magic);
    let (quarter, half) = (T::splat(0.25), T::splat(0.5));
    let f = f.select_gt(quarter, half - f, f);
    let f = (-quarter).select_gt(f, -half - f, f);
    let x = f * T::splat(std::f32::consts::TAU);
    let x2 = x * x;
    // x (1 − x²/3! (1 − x²/(4·5) (1 − x²/(6·7) (1 − x²/(8·9) (1 − x²/(10·11))))))
    let term = |k: Real, inner: T| T::splat(1.0) - x2 * T::splat(1.0 / (k * (k + 1.0))) * inner;
    let p = term(10.0, T::splat(1.0));
    let p = term(8.0, p);
    let p = term(6.0, p);
    let p = term(4.0, p);
    x * term(2.0, p)
}

/// The vectors of the per-particle stages (pack, prediction, velocity update), taken one
/// particle at a time ([`Vec3`]) or four ([`Flat4`]): each stage writes its arithmetic once,
/// generic over `Coords`, and gets the same bits either way (the same operations on each
/// coordinate).
pub trait Coords:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Neg<Output = Self>
    + std::ops::Mul<Real, Output = Self>
    + std::ops::Div<Real, Output = Self>
{
    /// How many particles' vectors it holds.
    const N: usize;
    /// The first `N` vectors of `v`.
    fn load(v: &[Vec3]) -> Self;
    /// `v` for each of the `N` particles.
    fn splat(v: Vec3) -> Self;
    /// Writes the `N` vectors to the start of `v`.
    fn store(self, v: &mut [Vec3]);
}

impl Coords for Vec3 {
    const N: usize = 1;

    #[inline(always)]
    fn load(v: &[Vec3]) -> Self {
        v[0]
    }

    #[inline(always)]
    fn splat(v: Vec3) -> Self {
        v
    }

    #[inline(always)]
    fn store(self, v: &mut [Vec3]) {
        v[0] = self;
    }
}

/// The coordinates of four consecutive vectors (of four particles), flat (`x₀ y₀ z₀ x₁`,
/// `y₁ z₁ x₂ y₂`, `z₂ x₃ y₃ z₃`) in three SIMD vectors: the per-particle stages' [`Coords`] for
/// four particles at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flat4([f32x4; 3]);

impl Coords for Flat4 {
    const N: usize = 4;

    #[inline(always)]
    fn load(v: &[Vec3]) -> Self {
        let f: [Real; 12] = std::array::from_fn(|k| v[k / 3][k % 3]);
        Flat4(std::array::from_fn(|j| {
            f32x4::new([f[4 * j], f[4 * j + 1], f[4 * j + 2], f[4 * j + 3]])
        }))
    }

    #[inline(always)]
    fn splat(v: Vec3) -> Self {
        Self::load(&[v; 4])
    }

    #[inline(always)]
    fn store(self, v: &mut [Vec3]) {
        let f = self.0.map(f32x4::to_array);
        for (i, v) in v[..4].iter_mut().enumerate() {
            *v = Vec3::from_fn(|c, _| f[(3 * i + c) / 4][(3 * i + c) % 4]);
        }
    }
}

impl std::ops::Add for Flat4 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Flat4(std::array::from_fn(|j| self.0[j] + o.0[j]))
    }
}

impl std::ops::Sub for Flat4 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Flat4(std::array::from_fn(|j| self.0[j] - o.0[j]))
    }
}

impl std::ops::Neg for Flat4 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Flat4(self.0.map(|v| -v))
    }
}

impl std::ops::Mul<Real> for Flat4 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, s: Real) -> Self {
        Flat4(self.0.map(|v| v * f32x4::splat(s)))
    }
}

impl std::ops::Div<Real> for Flat4 {
    type Output = Self;
    #[inline(always)]
    fn div(self, s: Real) -> Self {
        Flat4(self.0.map(|v| v / f32x4::splat(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_particles_flat_give_the_bits_of_one_at_a_time() {
        let v: Vec<Vec3> = (0..4)
            .map(|i| Vec3::new(0.1 + i as Real, -1.3 * i as Real, 7.0 / (i + 3) as Real))
            .collect();
        let w: Vec<Vec3> = v.iter().map(|x| x.map(|c| c * 0.37 - 2.0)).collect();
        let o = Vec3::new(1e3, -2e-3, 5.0);
        // Every operation of `Coords`, four at a time and one at a time.
        fn ops<T: Coords>(a: T, b: T, o: T) -> T {
            -((a + b) * 0.7 - o) / 3.0
        }
        let mut flat = vec![Vec3::zeros(); 4];
        ops(Flat4::load(&v), Flat4::load(&w), Flat4::splat(o)).store(&mut flat);
        for i in 0..4 {
            assert_eq!(flat[i], ops(v[i], w[i], o), "particle {i}");
        }
    }

    #[test]
    fn atan2_is_within_its_error_bound_all_round_the_circle() {
        let n = 200_000;
        let mut worst: f64 = 0.0;
        for i in 0..n {
            let phi =
                -std::f64::consts::PI + 2.0 * std::f64::consts::PI * f64::from(i) / f64::from(n);
            for r in [1e-3, 1.0, 7.5e4] {
                let (x, y) = ((r * phi.cos()) as Real, (r * phi.sin()) as Real);
                let exact = f64::from(y).atan2(f64::from(x));
                worst = worst.max((f64::from(atan2(y, x)) - exact).abs());
            }
        }
        assert!(worst <= 4.2e-7, "largest error {worst} rad");
    }

    #[test]
    fn atan2_on_the_axes_and_at_the_origin() {
        use std::f32::consts::{FRAC_PI_2, PI};
        assert_eq!(atan2(0.0, 1.0), 0.0);
        assert_eq!(atan2(0.0, 0.0), 0.0);
        assert!((atan2(1.0, 0.0) - FRAC_PI_2).abs() <= 4.2e-7);
        assert!((atan2(-1.0, 0.0) + FRAC_PI_2).abs() <= 4.2e-7);
        assert!((atan2(0.0, -1.0) - PI).abs() <= 4.2e-7);
    }

    #[test]
    fn sin_turns_is_within_its_error_bound() {
        let n = 1_000_000;
        let mut worst: f64 = 0.0;
        for i in 0..=n {
            // A million points over 40 turns, and the same far from zero.
            for offset in [0.0, 2e5] {
                let q = (offset + -20.0 + 40.0 * f64::from(i) / f64::from(n)) as Real;
                let exact = (std::f64::consts::TAU * f64::from(q)).sin();
                worst = worst.max((f64::from(sin_turns(q)) - exact).abs());
            }
        }
        assert!(worst <= 2e-7, "largest error {worst}");
        assert_eq!(sin_turns(0.0), 0.0);
        assert_eq!(sin_turns(-3.0), 0.0);
        assert!((sin_turns(0.25) - 1.0).abs() <= 2e-7 && (sin_turns(0.75) + 1.0).abs() <= 2e-7);
        let lanes = sin_turns(wide::f32x8::new([
            0.1, -0.3, 7.7, 0.5, -0.25, 1e5, 0.0, 3.2,
        ]));
        for (l, q) in [0.1, -0.3, 7.7, 0.5, -0.25, 1e5, 0.0, 3.2]
            .into_iter()
            .enumerate()
        {
            assert_eq!(
                lanes.to_array()[l].to_bits(),
                sin_turns(q).to_bits(),
                "lane {l}"
            );
        }
    }

    #[test]
    fn atan2_lanes_give_the_scalar_bits() {
        let ys: [Real; 8] = [0.3, -0.7, 1e-6, -2.0, 0.0, 5.0, -0.25, 0.9];
        let xs: [Real; 8] = [1.0, -0.2, -3.0, 0.0, -1.0, 0.1, -0.25, 0.9];
        let lanes = atan2(wide::f32x8::new(ys), wide::f32x8::new(xs)).to_array();
        for l in 0..8 {
            assert_eq!(
                lanes[l].to_bits(),
                atan2(ys[l], xs[l]).to_bits(),
                "lane {l}"
            );
        }
    }
}
