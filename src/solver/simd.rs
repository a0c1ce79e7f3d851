//! The SIMD vectors of the batched kernels, how they move a batch of particles in and out of
//! their [`Slot`]s, and which instruction set runs them: [`path`], detected once for every kernel
//! (the scheduled families, the Neo-Hookean tets and the wind).
//!
//! A batched kernel (see [`solver`](crate::solver)) works on [`LANES`] constraints at once,
//! one per lane. [`Batch`] gathers the lanes' particles from their 16-byte slots into one vector
//! per coordinate (x, y, z and the inverse mass w) and scatters them back. Two vectors implement
//! it:
//!
//! - `wide::f32x8`, portable: it compiles to whatever the build's target has (two SSE registers
//!   on baseline x86-64), and gathers lane by lane.
//! - `avx::F32x8` on x86-64, one AVX register: it gathers with eight 16-byte loads and a 4 x 4
//!   transpose in each 128-bit half (and scatters the same way back), and paired slots (lane
//!   `r + 4` in the slot after lane `r`'s) with four 32-byte loads and the same transpose. The
//!   kernels use it only inside functions compiled for AVX that run when [`path`] is
//!   [`SimdPath::Avx2`] or [`SimdPath::Avx512`], so one binary runs on every x86-64 processor
//!   and uses AVX where there is one.
//!
//! Two batches that share no particle may go as one [`Pair`]: `wide::f32x16`, one AVX-512
//! register (`avx512::F32x16`), or two AVX registers ([`Two`]).
//!
//! All compute with correctly rounded IEEE operations (no fused multiply-add), so the scalar,
//! portable and AVX projections of a constraint give the same bits, whichever path runs.

use super::schedule::LANES;
use super::view::Slot;
use crate::math::{LaneVec, Lanes, Real, Vec3};
use wide::f32x8;

/// The instruction sets the batched kernels are built for, from the narrowest to the widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdPath {
    /// `wide::f32x8`, for any processor.
    Portable,
    /// `avx::F32x8`, eight lanes in one 256-bit register, 16 of them (x86-64). The kernels are
    /// compiled for AVX and need nothing more, so the path runs on any processor with AVX; it is
    /// named for the processors of its register width, nearly all of which also have AVX2.
    Avx2,
    /// The same vectors and arithmetic compiled for AVX-512F and VL (x86-64), which gives LLVM 32
    /// registers (a dihedral batch's four particles then fit without spilling), and
    /// `avx512::F32x16` where two batches are projected at once.
    Avx512,
}

impl SimdPath {
    /// Every path, narrowest first.
    pub const ALL: [SimdPath; 3] = [SimdPath::Portable, SimdPath::Avx2, SimdPath::Avx512];

    /// The path's name, as [`SIMD_ENV`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            SimdPath::Portable => "portable",
            SimdPath::Avx2 => "avx2",
            SimdPath::Avx512 => "avx512",
        }
    }

    /// The path named `name` (see [`SimdPath::name`]).
    pub fn from_name(name: &str) -> Option<SimdPath> {
        SimdPath::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl std::fmt::Display for SimdPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The environment variable that forces a [`SimdPath`]: `portable`, `avx2` or `avx512`.
pub const SIMD_ENV: &str = "SUPPLE_SIMD";

/// A value of [`SIMD_ENV`] that cannot be followed; the kernels then run the [`detected`] path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimdEnvError {
    /// The value names no path.
    #[error("{SIMD_ENV}={value:?} names no SIMD path: expected one of portable, avx2, avx512")]
    Unknown {
        /// The variable's value.
        value: String,
    },
    /// The value names a path that this processor cannot run.
    #[error(
        "{SIMD_ENV}={requested}: this processor cannot run the {requested} path (its widest is \
         {detected}); expected one of {}",
        supported(*detected)
    )]
    Unsupported {
        /// The path named.
        requested: SimdPath,
        /// The widest path the processor runs.
        detected: SimdPath,
    },
}

/// The names of the paths up to `widest`, comma-separated.
fn supported(widest: SimdPath) -> String {
    let names: Vec<_> = SimdPath::ALL
        .iter()
        .filter(|&&p| p <= widest)
        .map(|p| p.name())
        .collect();
    names.join(", ")
}

/// The path that the value `value` of [`SIMD_ENV`] requests on a processor whose widest path is
/// `detected`: `None` when the variable is unset or empty.
pub fn parse_request(
    value: Option<&str>,
    detected: SimdPath,
) -> Result<Option<SimdPath>, SimdEnvError> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let requested = SimdPath::from_name(value).ok_or_else(|| SimdEnvError::Unknown {
        value: value.to_owned(),
    })?;
    match requested <= detected {
        true => Ok(Some(requested)),
        false => Err(SimdEnvError::Unsupported {
            requested,
            detected,
        }),
    }
}

/// What [`path`] and [`requested`] return, found once per process.
struct Choice {
    detected: SimdPath,
    requested: Result<Option<SimdPath>, SimdEnvError>,
}

/// The [`Choice`] of this process: the processor's widest path and [`SIMD_ENV`], read once.
fn choice() -> &'static Choice {
    static CHOICE: std::sync::OnceLock<Choice> = std::sync::OnceLock::new();
    CHOICE.get_or_init(|| {
        let detected = detect();
        let value = std::env::var_os(SIMD_ENV).map(|v| v.to_string_lossy().into_owned());
        Choice {
            detected,
            requested: parse_request(value.as_deref(), detected),
        }
    })
}

/// The widest path the processor runs.
fn detect() -> SimdPath {
    #[cfg(target_arch = "x86_64")]
    {
        let avx512 = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl");
        if avx512 {
            return SimdPath::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx") {
            return SimdPath::Avx2;
        }
    }
    SimdPath::Portable
}

/// The widest path this processor runs, whatever [`SIMD_ENV`] says.
pub fn detected() -> SimdPath {
    choice().detected
}

/// The path that [`SIMD_ENV`] forces (`None` when unset), or why it cannot be followed (then
/// the kernels run the [`detected`] path). Read once per process.
pub fn requested() -> Result<Option<SimdPath>, SimdEnvError> {
    choice().requested.clone()
}

/// The path every batched kernel runs: the one [`SIMD_ENV`] forces, else the [`detected`] one.
/// The processor always has it.
#[inline]
pub fn path() -> SimdPath {
    let c = choice();
    match c.requested {
        Ok(Some(p)) => p,
        _ => c.detected,
    }
}

/// Entries of a table that [`Batch::lookup`] reads (four: AVX permutes within each 128-bit
/// half).
pub const TABLE: usize = 4;

/// A SIMD vector of [`LANES`] reals that loads and stores the particles of a batch.
pub trait Batch: Lanes + Send + Sync {
    /// The vector holding `a`.
    fn from_array(a: [Real; LANES]) -> Self;
    /// The lanes of the vector.
    fn to_array(self) -> [Real; LANES];
    /// Lane `l` is `table[index[l]]`, for indices below [`TABLE`].
    #[inline(always)]
    fn lookup(table: [Real; TABLE], index: &[u16; LANES]) -> Self {
        Self::from_array(index.map(|i| table[i as usize]))
    }
    /// The slots `slots` transposed: one vector each of x, y, z and w, lane `l` from `slots[l]`.
    ///
    /// # Safety
    /// Every pointer is valid for reads, and no other thread writes its slot during the call.
    unsafe fn gather(slots: &[*mut Slot; LANES]) -> [Self; 4];
    /// Writes lane `l` of `xyzw` to `slots[l]`, the inverse of [`Batch::gather`].
    ///
    /// # Safety
    /// Every pointer is valid for writes, and no other thread accesses its slot during the call.
    unsafe fn scatter(xyzw: [Self; 4], slots: &[*mut Slot; LANES]);
    /// Adds lane `l` of `dp` (x, y, z) to the position in `slots[l]`, its inverse mass left as it
    /// is: the additions of [`Batch::scatter`] of the moved positions, without the gathered
    /// positions kept alive across the projection (which spills them to the stack). The slots
    /// must be distinct: a repeated slot would be moved twice.
    ///
    /// # Safety
    /// As [`Batch::scatter`].
    #[inline(always)]
    unsafe fn add_scatter(dp: [Self; 3], slots: &[*mut Slot; LANES]) {
        let [x, y, z] = dp.map(Self::to_array);
        for (l, &s) in slots.iter().enumerate() {
            // SAFETY: the caller's contract.
            let p = unsafe { &mut (*s).p };
            (p.x, p.y, p.z) = (p.x + x[l], p.y + y[l], p.z + z[l]);
        }
    }

    /// [`Batch::gather`] of paired slots (see [`schedule::paired`](super::schedule::paired)):
    /// `slots[r + 4]` is the slot after `slots[r]`, so that each pair is one load where the
    /// vector has them.
    ///
    /// # Safety
    /// As [`Batch::gather`], and `slots[r + LANES / 2] == slots[r].add(1)` for every `r`.
    #[inline(always)]
    unsafe fn gather_paired(slots: &[*mut Slot; LANES]) -> [Self; 4] {
        // SAFETY: the caller's contract.
        unsafe { Self::gather(slots) }
    }

    /// [`Batch::scatter`] to paired slots, the inverse of [`Batch::gather_paired`].
    ///
    /// # Safety
    /// As [`Batch::scatter`], and the slots paired as for [`Batch::gather_paired`].
    #[inline(always)]
    unsafe fn scatter_paired(xyzw: [Self; 4], slots: &[*mut Slot; LANES]) {
        // SAFETY: the caller's contract.
        unsafe { Self::scatter(xyzw, slots) }
    }

    /// [`Batch::add_scatter`] to paired slots (see [`Batch::gather_paired`]).
    ///
    /// # Safety
    /// As [`Batch::add_scatter`], and the slots paired as for [`Batch::gather_paired`].
    #[inline(always)]
    unsafe fn add_scatter_paired(dp: [Self; 3], slots: &[*mut Slot; LANES]) {
        // SAFETY: the caller's contract.
        unsafe { Self::add_scatter(dp, slots) }
    }

    /// [`Batch::gather`] of both particles of straddled lanes (see
    /// [`schedule::STRADDLED`](super::schedule::STRADDLED)): lane `l`'s first particle in
    /// `slots[l]` and its second in the slot after it, so that each lane is one load where the
    /// vector has it. Returns the first particles' x, y, z and w, then the second's.
    ///
    /// # Safety
    /// As [`Batch::gather`], for `slots` and for the slot after each.
    #[inline(always)]
    unsafe fn gather_straddled(slots: &[*mut Slot; LANES]) -> [[Self; 4]; 2] {
        // SAFETY: the caller's contract.
        unsafe { [Self::gather(slots), Self::gather(&next_slots(slots))] }
    }

    /// [`Batch::scatter`] of both particles of straddled lanes, the inverse of
    /// [`Batch::gather_straddled`].
    ///
    /// # Safety
    /// As [`Batch::scatter`], for `slots` and for the slot after each.
    #[inline(always)]
    unsafe fn scatter_straddled(xyzw: [[Self; 4]; 2], slots: &[*mut Slot; LANES]) {
        let [first, second] = xyzw;
        // SAFETY: the caller's contract.
        unsafe {
            Self::scatter(first, slots);
            Self::scatter(second, &next_slots(slots));
        }
    }

    /// [`Batch::add_scatter`] to both particles of straddled lanes (see
    /// [`Batch::gather_straddled`]): `dp[0]` to the first, `dp[1]` to the second.
    ///
    /// # Safety
    /// As [`Batch::add_scatter`], for `slots` and for the slot after each.
    #[inline(always)]
    unsafe fn add_scatter_straddled(dp: [[Self; 3]; 2], slots: &[*mut Slot; LANES]) {
        let [first, second] = dp;
        // SAFETY: the caller's contract.
        unsafe {
            Self::add_scatter(first, slots);
            Self::add_scatter(second, &next_slots(slots));
        }
    }
}

/// The slot after each of `slots`. A plain loop, so that it compiles inside an AVX caller.
///
/// # Safety
/// Each slot after one of `slots` lies in the same allocation.
#[inline(always)]
unsafe fn next_slots(slots: &[*mut Slot; LANES]) -> [*mut Slot; LANES] {
    let mut next = *slots;
    for s in &mut next {
        // SAFETY: the caller's contract.
        *s = unsafe { s.add(1) };
    }
    next
}

/// The vectors `v[ids[l]]` of the lanes `l`, one SIMD vector per coordinate: the start
/// positions, velocities and such that a batched kernel reads beside its slots. A plain loop, so
/// that it compiles inside an AVX caller.
#[inline(always)]
pub fn gather_vec3<V: Batch>(v: &[Vec3], ids: &[usize; LANES]) -> LaneVec<V> {
    let mut c = [[0.0; LANES]; 3];
    for l in 0..LANES {
        let x = v[ids[l]];
        (c[0][l], c[1][l], c[2][l]) = (x.x, x.y, x.z);
    }
    let [x, y, z] = c;
    LaneVec([V::from_array(x), V::from_array(y), V::from_array(z)])
}

/// The vector of each lane of `v`: the inverse of [`gather_vec3`] with the ids `0..LANES`.
pub fn lanes_vec3<V: Batch>(v: LaneVec<V>) -> [Vec3; LANES] {
    let [x, y, z] = v.0.map(V::to_array);
    std::array::from_fn(|l| Vec3::new(x[l], y[l], z[l]))
}

/// Two vectors `V` side by side, so that two batches that share no particle are projected as
/// one: lanes `0..LANES` of one, then those of the other.
pub trait Pair<V>: Lanes {
    /// Whether the pair is two registers (see [`Two`]) rather than one.
    const SPLIT: bool = false;
    /// `low` then `high`.
    fn join(low: V, high: V) -> Self;
    /// The two halves, the inverse of [`Pair::join`].
    fn halves(self) -> (V, V);
}

/// Two vectors as one [`Pair`] where no register holds both (AVX without AVX-512): each
/// operation runs on both halves, so the processor has two independent chains of arithmetic
/// to overlap.
#[derive(Clone, Copy)]
pub struct Two<V>(V, V);

/// The `std::ops` operator `$trait::$method` of [`Two`], half by half.
macro_rules! two_binary {
    ($trait:ident, $method:ident) => {
        impl<V: Lanes> std::ops::$trait for Two<V> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, o: Self) -> Self {
                Two(self.0.$method(o.0), self.1.$method(o.1))
            }
        }
    };
}
two_binary!(Add, add);
two_binary!(Sub, sub);
two_binary!(Mul, mul);
two_binary!(Div, div);

impl<V: Lanes> std::ops::Neg for Two<V> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Two(-self.0, -self.1)
    }
}

impl<V: Lanes> Lanes for Two<V> {
    #[inline(always)]
    fn splat(x: Real) -> Self {
        Two(V::splat(x), V::splat(x))
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        Two(self.0.sqrt(), self.1.sqrt())
    }

    #[inline(always)]
    fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self {
        Two(
            self.0.select_gt(bound.0, then.0, otherwise.0),
            self.1.select_gt(bound.1, then.1, otherwise.1),
        )
    }

    #[inline(always)]
    fn abs(self) -> Self {
        Two(self.0.abs(), self.1.abs())
    }
}

impl<V: Lanes> Pair<V> for Two<V> {
    const SPLIT: bool = true;

    #[inline(always)]
    fn join(low: V, high: V) -> Self {
        Two(low, high)
    }

    #[inline(always)]
    fn halves(self) -> (V, V) {
        (self.0, self.1)
    }
}

impl Batch for f32x8 {
    #[inline(always)]
    fn from_array(a: [Real; LANES]) -> Self {
        f32x8::new(a)
    }

    #[inline(always)]
    fn to_array(self) -> [Real; LANES] {
        f32x8::to_array(self)
    }

    #[inline(always)]
    unsafe fn gather(slots: &[*mut Slot; LANES]) -> [Self; 4] {
        // SAFETY: the caller's contract.
        let s = slots.map(|s| unsafe { *s });
        [
            f32x8::new(s.map(|s| s.p.x)),
            f32x8::new(s.map(|s| s.p.y)),
            f32x8::new(s.map(|s| s.p.z)),
            f32x8::new(s.map(|s| s.w)),
        ]
    }

    #[inline(always)]
    unsafe fn scatter(xyzw: [Self; 4], slots: &[*mut Slot; LANES]) {
        let [x, y, z, w] = xyzw.map(f32x8::to_array);
        for (l, &s) in slots.iter().enumerate() {
            // SAFETY: the caller's contract.
            unsafe { *s = Slot::new(x[l], y[l], z[l], w[l]) };
        }
    }
}

impl Pair<f32x8> for wide::f32x16 {
    #[inline(always)]
    fn join(low: f32x8, high: f32x8) -> Self {
        let (low, high) = (low.to_array(), high.to_array());
        wide::f32x16::new(std::array::from_fn(|l| {
            if l < LANES { low[l] } else { high[l - LANES] }
        }))
    }

    #[inline(always)]
    fn halves(self) -> (f32x8, f32x8) {
        let a = self.to_array();
        (
            f32x8::new(std::array::from_fn(|l| a[l])),
            f32x8::new(std::array::from_fn(|l| a[l + LANES])),
        )
    }
}

/// The AVX vector (x86-64 only).
#[cfg(target_arch = "x86_64")]
pub mod avx {
    use super::{Batch, LANES, Lanes, Real, Slot, TABLE};
    use std::arch::x86_64::*;

    /// Eight `f32` lanes in one AVX register.
    ///
    /// Its safe methods run AVX instructions. The type is private to the crate, and the crate
    /// makes and uses its values only inside functions compiled with `#[target_feature(enable =
    /// "avx")]` (or wider) that are called when [`path`](super::path) is AVX or wider (see the
    /// batched kernels of `constraints::batched`); every method is `#[inline(always)]` so that
    /// it compiles inside them.
    #[derive(Clone, Copy)]
    pub(crate) struct F32x8(pub(super) __m256);

    macro_rules! binary {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl std::ops::$trait for F32x8 {
                type Output = Self;
                #[inline(always)]
                fn $method(self, o: Self) -> Self {
                    // SAFETY: AVX is present (see the type's docs).
                    F32x8(unsafe { $intrinsic(self.0, o.0) })
                }
            }
        };
    }
    binary!(Add, add, _mm256_add_ps);
    binary!(Sub, sub, _mm256_sub_ps);
    binary!(Mul, mul, _mm256_mul_ps);
    binary!(Div, div, _mm256_div_ps);

    impl std::ops::Neg for F32x8 {
        type Output = Self;
        /// Flips the sign bit, as `f32`'s negation does (so `-0.0` for `0.0`).
        #[inline(always)]
        fn neg(self) -> Self {
            // SAFETY: AVX is present (see the type's docs).
            F32x8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
        }
    }

    impl Lanes for F32x8 {
        #[inline(always)]
        fn splat(x: Real) -> Self {
            // SAFETY: AVX is present (see the type's docs).
            F32x8(unsafe { _mm256_set1_ps(x) })
        }

        #[inline(always)]
        fn sqrt(self) -> Self {
            // SAFETY: AVX is present (see the type's docs).
            F32x8(unsafe { _mm256_sqrt_ps(self.0) })
        }

        #[inline(always)]
        fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self {
            // Bitwise rather than `blendv`: with `otherwise` zero this is one `and`, where LLVM
            // turns `blendv` into a sign test that AVX (without AVX2) splits into 128-bit halves.
            // SAFETY: AVX is present (see the type's docs). Ordered comparison: false for NaN,
            // as `>` on `f32`.
            F32x8(unsafe {
                let gt = _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, bound.0);
                _mm256_or_ps(_mm256_and_ps(gt, then.0), _mm256_andnot_ps(gt, otherwise.0))
            })
        }

        #[inline(always)]
        fn abs(self) -> Self {
            // SAFETY: AVX is present (see the type's docs).
            F32x8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
        }
    }

    /// A 4 x 4 transpose in each 128-bit half, its own inverse: the four vectors `xyzw` (x, y,
    /// z and w of eight lanes) become the slots of the lanes, row `r` holding lane `r` in its low
    /// half and lane `r + 4` in its high half, and such rows become `xyzw` again.
    #[inline(always)]
    fn transpose(a: [__m256; 4]) -> [__m256; 4] {
        // SAFETY: AVX is present (see the type's docs).
        unsafe {
            let t0 = _mm256_unpacklo_ps(a[0], a[1]); // x0 y0 x1 y1
            let t1 = _mm256_unpackhi_ps(a[0], a[1]); // x2 y2 x3 y3
            let t2 = _mm256_unpacklo_ps(a[2], a[3]); // z0 w0 z1 w1
            let t3 = _mm256_unpackhi_ps(a[2], a[3]); // z2 w2 z3 w3
            [
                _mm256_shuffle_ps::<0x44>(t0, t2),
                _mm256_shuffle_ps::<0xEE>(t0, t2),
                _mm256_shuffle_ps::<0x44>(t1, t3),
                _mm256_shuffle_ps::<0xEE>(t1, t3),
            ]
        }
    }

    /// The slots of the lanes of `xyzw` as rows (see [`transpose`]).
    #[inline(always)]
    fn rows(xyzw: [F32x8; 4]) -> [__m256; 4] {
        transpose(xyzw.map(|v| v.0))
    }

    /// The x, y, z and w vectors of the lanes whose slots are `rows` (see [`transpose`]).
    #[inline(always)]
    fn columns(rows: [__m256; 4]) -> [F32x8; 4] {
        transpose(rows).map(F32x8)
    }

    /// `dp` (x, y, z) beside `−0` for the inverse mass, which adding leaves as it is.
    #[inline(always)]
    fn moves(dp: [F32x8; 3]) -> [F32x8; 4] {
        // SAFETY: AVX is present (see the type's docs).
        [dp[0], dp[1], dp[2], F32x8(unsafe { _mm256_set1_ps(-0.0) })]
    }

    impl Batch for F32x8 {
        #[inline(always)]
        fn from_array(a: [Real; LANES]) -> Self {
            // SAFETY: AVX is present (see the type's docs); `a` holds 8 floats.
            F32x8(unsafe { _mm256_loadu_ps(a.as_ptr()) })
        }

        #[inline(always)]
        fn to_array(self) -> [Real; LANES] {
            let mut a = [0.0; LANES];
            // SAFETY: AVX is present (see the type's docs); `a` holds 8 floats.
            unsafe { _mm256_storeu_ps(a.as_mut_ptr(), self.0) };
            a
        }

        /// The table in both 128-bit halves, permuted by the indices widened to 32 bits: four
        /// instructions where the portable lookup stores eight lanes and loads them back.
        #[inline(always)]
        fn lookup(table: [Real; TABLE], index: &[u16; LANES]) -> Self {
            // SAFETY: AVX is present (see the type's docs); `index` holds 16 bytes, `table` 4
            // floats. `vpermilps` reads the low two bits of each index, below `TABLE`.
            F32x8(unsafe {
                let i = _mm_loadu_si128(index.as_ptr().cast());
                let low = _mm_cvtepu16_epi32(i);
                let high = _mm_cvtepu16_epi32(_mm_unpackhi_epi64(i, i));
                let i = _mm256_insertf128_si256::<1>(_mm256_castsi128_si256(low), high);
                let t = _mm_loadu_ps(table.as_ptr());
                let t = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(t), t);
                _mm256_permutevar_ps(t, i)
            })
        }

        #[inline(always)]
        unsafe fn gather(slots: &[*mut Slot; LANES]) -> [Self; 4] {
            // SAFETY: AVX is present; the slots are valid, 16-byte aligned and 16 bytes long
            // (`Slot` is `repr(C, align(16))` with four `f32`), by the caller's contract.
            unsafe {
                let load = |s: *mut Slot| _mm_load_ps(s.cast::<f32>());
                // Row r holds slot r in its low half and slot r + 4 in its high half.
                let row = |r: usize| {
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(load(slots[r])),
                        load(slots[r + 4]),
                    )
                };
                columns([row(0), row(1), row(2), row(3)])
            }
        }

        #[inline(always)]
        unsafe fn scatter(xyzw: [Self; 4], slots: &[*mut Slot; LANES]) {
            // SAFETY: as in `gather`.
            unsafe {
                for (r, row) in rows(xyzw).into_iter().enumerate() {
                    _mm_store_ps(slots[r].cast::<f32>(), _mm256_castps256_ps128(row));
                    _mm_store_ps(slots[r + 4].cast::<f32>(), _mm256_extractf128_ps::<1>(row));
                }
            }
        }

        /// Each slot read, added to and written back in place, 16 bytes at a time; the inverse
        /// mass gets `−0`, which leaves every value as it is.
        #[inline(always)]
        unsafe fn add_scatter(dp: [Self; 3], slots: &[*mut Slot; LANES]) {
            // SAFETY: as in `gather`.
            unsafe {
                for (r, row) in rows(moves(dp)).into_iter().enumerate() {
                    let add = |s: *mut Slot, d: __m128| {
                        let s = s.cast::<f32>();
                        _mm_store_ps(s, _mm_add_ps(_mm_load_ps(s), d));
                    };
                    add(slots[r], _mm256_castps256_ps128(row));
                    add(slots[r + 4], _mm256_extractf128_ps::<1>(row));
                }
            }
        }

        /// Each row (a slot and the one after it) one 32-byte load, where [`Batch::gather`]
        /// takes a 16-byte load and an insert.
        #[inline(always)]
        unsafe fn gather_paired(slots: &[*mut Slot; LANES]) -> [Self; 4] {
            // SAFETY: as in `gather`; the slot after `slots[r]` is `slots[r + 4]`.
            unsafe {
                let row = |r: usize| _mm256_loadu_ps(slots[r].cast::<f32>());
                columns([row(0), row(1), row(2), row(3)])
            }
        }

        /// Each row one 32-byte store.
        #[inline(always)]
        unsafe fn scatter_paired(xyzw: [Self; 4], slots: &[*mut Slot; LANES]) {
            // SAFETY: as in `gather_paired`.
            unsafe {
                for (r, row) in rows(xyzw).into_iter().enumerate() {
                    _mm256_storeu_ps(slots[r].cast::<f32>(), row);
                }
            }
        }

        /// Each row read, added to and written back whole, 32 bytes at a time.
        #[inline(always)]
        unsafe fn add_scatter_paired(dp: [Self; 3], slots: &[*mut Slot; LANES]) {
            // SAFETY: as in `gather_paired`.
            unsafe {
                for (r, row) in rows(moves(dp)).into_iter().enumerate() {
                    let s = slots[r].cast::<f32>();
                    _mm256_storeu_ps(s, _mm256_add_ps(_mm256_loadu_ps(s), row));
                }
            }
        }

        /// Each lane's two slots one 32-byte load: lanes 0 to 3 transposed give vectors of
        /// their first particles (low half) beside their second (high half), lanes 4 to 7 the
        /// same, and one cross-half permute per vector regroups them.
        #[inline(always)]
        unsafe fn gather_straddled(slots: &[*mut Slot; LANES]) -> [[Self; 4]; 2] {
            // SAFETY: as in `gather`, for each slot and the one after it.
            unsafe {
                let row = |l: usize| _mm256_loadu_ps(slots[l].cast::<f32>());
                let low = transpose([row(0), row(1), row(2), row(3)]);
                let high = transpose([row(4), row(5), row(6), row(7)]);
                let mut out = [[F32x8(_mm256_setzero_ps()); 4]; 2];
                for c in 0..4 {
                    out[0][c] = F32x8(_mm256_permute2f128_ps::<0x20>(low[c], high[c]));
                    out[1][c] = F32x8(_mm256_permute2f128_ps::<0x31>(low[c], high[c]));
                }
                out
            }
        }

        /// The inverse of [`Batch::gather_straddled`]: each lane's two slots one 32-byte store.
        #[inline(always)]
        unsafe fn scatter_straddled(xyzw: [[Self; 4]; 2], slots: &[*mut Slot; LANES]) {
            // SAFETY: as in `gather_straddled`.
            unsafe {
                for (l, row) in straddled_rows(xyzw).into_iter().enumerate() {
                    _mm256_storeu_ps(slots[l].cast::<f32>(), row);
                }
            }
        }

        /// Each lane's two slots read, added to and written back whole, 32 bytes at a time.
        #[inline(always)]
        unsafe fn add_scatter_straddled(dp: [[Self; 3]; 2], slots: &[*mut Slot; LANES]) {
            // SAFETY: as in `gather_straddled`.
            unsafe {
                let moved = [moves(dp[0]), moves(dp[1])];
                for (l, row) in straddled_rows(moved).into_iter().enumerate() {
                    let s = slots[l].cast::<f32>();
                    _mm256_storeu_ps(s, _mm256_add_ps(_mm256_loadu_ps(s), row));
                }
            }
        }
    }

    /// The rows of straddled lanes (see [`Batch::gather_straddled`]) from the x, y, z and w of
    /// their first particles, `xyzw[0]`, and of their second, `xyzw[1]`: row `l` holds lane
    /// `l`'s first slot in its low half and its second in its high half.
    #[inline(always)]
    fn straddled_rows(xyzw: [[F32x8; 4]; 2]) -> [__m256; LANES] {
        // SAFETY: AVX is present (see the type's docs).
        unsafe {
            let zero = _mm256_setzero_ps();
            let (mut low, mut high) = ([zero; 4], [zero; 4]);
            for c in 0..4 {
                let (first, second) = (xyzw[0][c].0, xyzw[1][c].0);
                low[c] = _mm256_permute2f128_ps::<0x20>(first, second);
                high[c] = _mm256_permute2f128_ps::<0x31>(first, second);
            }
            let (low, high) = (transpose(low), transpose(high));
            [
                low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3],
            ]
        }
    }
}

/// The AVX-512 vector (x86-64 only): two batches side by side.
#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use super::avx::F32x8;
    use super::{Lanes, Pair, Real};
    use std::arch::x86_64::*;

    /// Sixteen `f32` lanes in one AVX-512 register: lanes 0 to 7 from one [`F32x8`], 8 to 15
    /// from another, so that two batches that share no particle are projected at once.
    ///
    /// Its safe methods run AVX-512F instructions. The crate makes and uses its values only
    /// inside functions compiled with `#[target_feature(enable = "avx512f,avx512vl")]` that are
    /// called when [`path`](super::path) is [`SimdPath::Avx512`](super::SimdPath::Avx512) (the
    /// paired batches of `constraints::batched`), and every method is `#[inline(always)]`.
    #[derive(Clone, Copy)]
    pub(crate) struct F32x16(__m512);

    macro_rules! binary {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl std::ops::$trait for F32x16 {
                type Output = Self;
                #[inline(always)]
                fn $method(self, o: Self) -> Self {
                    // SAFETY: AVX-512F is present (see the type's docs).
                    F32x16(unsafe { $intrinsic(self.0, o.0) })
                }
            }
        };
    }
    binary!(Add, add, _mm512_add_ps);
    binary!(Sub, sub, _mm512_sub_ps);
    binary!(Mul, mul, _mm512_mul_ps);
    binary!(Div, div, _mm512_div_ps);

    /// The sign bit of an `f32`, in every lane.
    #[inline(always)]
    fn sign_bits() -> __m512i {
        // SAFETY: AVX-512F is present (see the type's docs).
        unsafe { _mm512_set1_epi32(i32::MIN) }
    }

    impl std::ops::Neg for F32x16 {
        type Output = Self;
        /// Flips the sign bit, as `f32`'s negation does (so `-0.0` for `0.0`).
        #[inline(always)]
        fn neg(self) -> Self {
            // SAFETY: AVX-512F is present (see the type's docs).
            F32x16(unsafe {
                _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(self.0), sign_bits()))
            })
        }
    }

    impl Lanes for F32x16 {
        #[inline(always)]
        fn splat(x: Real) -> Self {
            // SAFETY: AVX-512F is present (see the type's docs).
            F32x16(unsafe { _mm512_set1_ps(x) })
        }

        #[inline(always)]
        fn sqrt(self) -> Self {
            // SAFETY: AVX-512F is present (see the type's docs).
            F32x16(unsafe { _mm512_sqrt_ps(self.0) })
        }

        #[inline(always)]
        fn select_gt(self, bound: Self, then: Self, otherwise: Self) -> Self {
            // SAFETY: AVX-512F is present (see the type's docs). Ordered comparison: false for
            // NaN, as `>` on `f32`.
            F32x16(unsafe {
                let gt = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(self.0, bound.0);
                _mm512_mask_blend_ps(gt, otherwise.0, then.0)
            })
        }

        #[inline(always)]
        fn abs(self) -> Self {
            // SAFETY: AVX-512F is present (see the type's docs).
            F32x16(unsafe {
                _mm512_castsi512_ps(_mm512_andnot_si512(
                    sign_bits(),
                    _mm512_castps_si512(self.0),
                ))
            })
        }
    }

    impl Pair<F32x8> for F32x16 {
        /// `low` in lanes 0 to 7 and `high` in lanes 8 to 15.
        #[inline(always)]
        fn join(low: F32x8, high: F32x8) -> Self {
            // SAFETY: AVX-512F is present (see the type's docs).
            F32x16(unsafe {
                let low = _mm512_castpd256_pd512(_mm256_castps_pd(low.0));
                _mm512_castpd_ps(_mm512_insertf64x4::<1>(low, _mm256_castps_pd(high.0)))
            })
        }

        /// Lanes 0 to 7 and lanes 8 to 15, the inverse of `join`.
        #[inline(always)]
        fn halves(self) -> (F32x8, F32x8) {
            // SAFETY: AVX-512F is present (see the type's docs).
            unsafe {
                let pd = _mm512_castps_pd(self.0);
                (
                    F32x8(_mm512_castps512_ps256(self.0)),
                    F32x8(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(pd))),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`SIMD_ENV`] takes the three names (unset or empty: no request), and refuses any other
    /// value, or a path wider than the processor's, with a message naming the variable, the
    /// value and the paths it may take.
    #[test]
    fn the_simd_variable_takes_the_three_names_and_refuses_others() {
        for path in SimdPath::ALL {
            let got = parse_request(Some(path.name()), SimdPath::Avx512);
            assert_eq!(got, Ok(Some(path)));
        }
        assert_eq!(parse_request(None, SimdPath::Avx2), Ok(None));
        assert_eq!(parse_request(Some(""), SimdPath::Avx2), Ok(None));
        for value in ["avx", "AVX2", "sse", "avx-512", "portable,avx2"] {
            let e = parse_request(Some(value), SimdPath::Avx512).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "SUPPLE_SIMD=\"{value}\" names no SIMD path: expected one of portable, \
                     avx2, avx512"
                )
            );
        }
        let e = parse_request(Some("avx512"), SimdPath::Avx2).unwrap_err();
        assert_eq!(
            e,
            SimdEnvError::Unsupported {
                requested: SimdPath::Avx512,
                detected: SimdPath::Avx2
            }
        );
        assert_eq!(
            e.to_string(),
            "SUPPLE_SIMD=avx512: this processor cannot run the avx512 path (its widest is \
             avx2); expected one of portable, avx2"
        );
        assert!(parse_request(Some("avx2"), SimdPath::Portable).is_err());
        // Whatever the variable says in this process, the path run is one the processor has.
        assert!(path() <= detected());
    }

    /// Every lane of a lookup is the table's entry at its index, with the portable vector and
    /// (where the processor has it) AVX, including indices that repeat and a table whose entries
    /// differ only in their low bits.
    #[test]
    fn a_lookup_reads_each_lanes_entry() {
        let table = [1.5, -0.0, f32::from_bits(0x3f80_0001), 7e-39];
        let indices = [
            [0, 1, 2, 3, 3, 2, 1, 0],
            [3; LANES],
            [2, 0, 2, 0, 1, 1, 3, 0],
        ];
        for index in indices {
            let want = index.map(|i| table[i as usize].to_bits());
            let portable = f32x8::lookup(table, &index).to_array().map(f32::to_bits);
            assert_eq!(portable, want, "portable, indices {index:?}");
            #[cfg(target_arch = "x86_64")]
            if detected() >= SimdPath::Avx2 {
                // SAFETY: the processor has AVX.
                let avx = unsafe { avx_lookup(table, &index) }.map(f32::to_bits);
                assert_eq!(avx, want, "AVX, indices {index:?}");
            }
        }
    }

    /// What [`paired_moves`] returns: the gathered vectors, and the slots after the addition.
    type Moved = ([[Real; LANES]; 4], Vec<Slot>);

    /// Paired slots (rows starting at odd and even slots, so that some 32-byte moves cross a
    /// cache line) read, added to and written by AVX's paired moves give the portable vector's
    /// lane by lane moves, bit for bit, and those read and write each lane's own slot.
    #[test]
    fn paired_moves_give_the_lane_by_lane_moves() {
        let start = test_slot;
        let firsts = [3, 8, 13, 16];
        let lanes: [usize; LANES] = std::array::from_fn(|l| firsts[l % 4] + l / 4);
        let xyzw = std::array::from_fn(|c| std::array::from_fn(|l| (c * LANES + l) as Real / 8.0));
        let dp =
            std::array::from_fn(|c| std::array::from_fn(|l| (l as Real + 3.0).powi(c as i32 - 1)));
        let run = |moves: unsafe fn(&[*mut Slot; LANES], _, _) -> Moved| {
            let mut slots: Vec<Slot> = (0..20).map(start).collect();
            let base = slots.as_mut_ptr();
            // SAFETY: the lanes' slots lie in `slots`, paired as `gather_paired` requires; one
            // thread; AVX only where the processor has it (below).
            let moved = unsafe { moves(&lanes.map(|l| base.add(l)), xyzw, dp) };
            (
                moved.0.map(|v| v.map(f32::to_bits)),
                slot_bits(&moved.1),
                slot_bits(&slots),
            )
        };
        let portable = run(paired_moves::<f32x8>);
        let mut want = (0..20).map(start).collect::<Vec<_>>();
        for (l, &i) in lanes.iter().enumerate() {
            let s = want[i];
            assert_eq!(
                portable.0.map(|v| v[l]),
                [s.p.x, s.p.y, s.p.z, s.w].map(f32::to_bits)
            );
            let added = [s.p.x + dp[0][l], s.p.y + dp[1][l], s.p.z + dp[2][l], s.w];
            assert_eq!(portable.1[4 * l..4 * l + 4], added.map(f32::to_bits));
            want[i] = Slot::new(xyzw[0][l], xyzw[1][l], xyzw[2][l], xyzw[3][l]);
        }
        assert_eq!(
            portable.2,
            slot_bits(&want),
            "each lane's slot written, no other"
        );
        #[cfg(target_arch = "x86_64")]
        if detected() >= SimdPath::Avx2 {
            assert_eq!(run(avx_paired_moves), portable);
        }
    }

    /// Slot `i` of the tests' slots: distinct, inexact values.
    fn test_slot(i: usize) -> Slot {
        let f = i as Real;
        Slot::new(f + 0.25, -f * 1.5, f * f / 7.0, 1.0 / (f + 1.0))
    }

    /// The bits of `slots`, x, y, z and w of each.
    fn slot_bits(slots: &[Slot]) -> Vec<u32> {
        (slots.iter())
            .flat_map(|s| [s.p.x, s.p.y, s.p.z, s.w].map(f32::to_bits))
            .collect()
    }

    /// What [`straddled_moves`] returns: the gathered vectors of the lanes' first and second
    /// particles, and their two slots after the addition, lane by lane.
    type MovedStraddled = ([[[Real; LANES]; 4]; 2], Vec<Slot>);

    /// Straddled slots (each lane's two side by side, some of them across a cache line) read,
    /// added to and written by AVX's straddled moves give the portable vector's lane by lane
    /// moves, bit for bit, and those read and write each lane's two slots, no other.
    #[test]
    fn straddled_moves_give_the_lane_by_lane_moves() {
        use std::array::from_fn;
        let firsts: [usize; LANES] = [0, 3, 6, 9, 13, 16, 19, 23];
        let value = |n: usize, c: usize, l: usize| ((n * 4 + c) * LANES + l) as Real / 8.0;
        let xyzw = from_fn(|n| from_fn(|c| from_fn(|l| value(n, c, l))));
        let step = |n: usize, c: usize, l: usize| (l as Real + 3.0 + n as Real).powi(c as i32 - 1);
        let dp = from_fn(|n| from_fn(|c| from_fn(|l| step(n, c, l))));
        let run = |moves: unsafe fn(&[*mut Slot; LANES], _, _) -> MovedStraddled| {
            let mut slots: Vec<Slot> = (0..26).map(test_slot).collect();
            let base = slots.as_mut_ptr();
            // SAFETY: the lanes' two slots lie in `slots`; one thread; AVX only where the
            // processor has it (below).
            let moved = unsafe { moves(&firsts.map(|l| base.add(l)), xyzw, dp) };
            let gathered = moved.0.map(|n| n.map(|v| v.map(f32::to_bits)));
            (gathered, slot_bits(&moved.1), slot_bits(&slots))
        };
        let portable = run(straddled_moves::<f32x8>);
        let mut want: Vec<Slot> = (0..26).map(test_slot).collect();
        let mut added = Vec::new();
        for (l, &i) in firsts.iter().enumerate() {
            for n in 0..2 {
                let s = want[i + n];
                let bits = [s.p.x, s.p.y, s.p.z, s.w].map(f32::to_bits);
                assert_eq!(portable.0[n].map(|v| v[l]), bits, "lane {l}, particle {n}");
                let d = dp[n].map(|c| c[l]);
                added.push(Slot::new(s.p.x + d[0], s.p.y + d[1], s.p.z + d[2], s.w));
                want[i + n] = Slot::new(xyzw[n][0][l], xyzw[n][1][l], xyzw[n][2][l], xyzw[n][3][l]);
            }
        }
        assert_eq!(portable.1, slot_bits(&added));
        assert_eq!(
            portable.2,
            slot_bits(&want),
            "each lane's two slots written, no other"
        );
        #[cfg(target_arch = "x86_64")]
        if detected() >= SimdPath::Avx2 {
            assert_eq!(run(avx_straddled_moves), portable);
        }
    }

    /// Gathers the straddled slots from `ptrs` with `V`, adds `dp` to them and copies them, then
    /// writes `xyzw` to them.
    ///
    /// # Safety
    /// `ptrs` and the slot after each are valid for reads and writes, and no two lanes share a
    /// slot; `V`'s instructions are present.
    #[inline(always)]
    unsafe fn straddled_moves<V: Batch>(
        ptrs: &[*mut Slot; LANES],
        xyzw: [[[Real; LANES]; 4]; 2],
        dp: [[[Real; LANES]; 3]; 2],
    ) -> MovedStraddled {
        // SAFETY: the caller's contract.
        unsafe {
            let gathered = V::gather_straddled(ptrs).map(|n| n.map(V::to_array));
            V::add_scatter_straddled(dp.map(|n| n.map(V::from_array)), ptrs);
            let added = ptrs.iter().flat_map(|&p| [*p, *p.add(1)]).collect();
            V::scatter_straddled(xyzw.map(|n| n.map(V::from_array)), ptrs);
            (gathered, added)
        }
    }

    /// [`straddled_moves`] with AVX vectors, compiled for AVX as the crate uses them.
    ///
    /// # Safety
    /// As [`straddled_moves`], and the processor has AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn avx_straddled_moves(
        ptrs: &[*mut Slot; LANES],
        xyzw: [[[Real; LANES]; 4]; 2],
        dp: [[[Real; LANES]; 3]; 2],
    ) -> MovedStraddled {
        // SAFETY: the caller's contract.
        unsafe { straddled_moves::<avx::F32x8>(ptrs, xyzw, dp) }
    }

    /// Gathers the paired slots `ptrs` with `V`, adds `dp` to them and copies them, then writes
    /// `xyzw` to them.
    ///
    /// # Safety
    /// `ptrs` are paired slots (see [`Batch::gather_paired`]), valid for reads and writes; `V`'s
    /// instructions are present.
    #[inline(always)]
    unsafe fn paired_moves<V: Batch>(
        ptrs: &[*mut Slot; LANES],
        xyzw: [[Real; LANES]; 4],
        dp: [[Real; LANES]; 3],
    ) -> Moved {
        // SAFETY: the caller's contract.
        unsafe {
            let gathered = V::gather_paired(ptrs).map(V::to_array);
            V::add_scatter_paired(dp.map(V::from_array), ptrs);
            let added = ptrs.iter().map(|&p| *p).collect();
            V::scatter_paired(xyzw.map(V::from_array), ptrs);
            (gathered, added)
        }
    }

    /// [`paired_moves`] with AVX vectors, compiled for AVX as the crate uses them.
    ///
    /// # Safety
    /// As [`paired_moves`], and the processor has AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn avx_paired_moves(
        ptrs: &[*mut Slot; LANES],
        xyzw: [[Real; LANES]; 4],
        dp: [[Real; LANES]; 3],
    ) -> Moved {
        // SAFETY: the caller's contract.
        unsafe { paired_moves::<avx::F32x8>(ptrs, xyzw, dp) }
    }

    /// [`Batch::lookup`] of the AVX vector, compiled for AVX as the crate uses it.
    ///
    /// # Safety
    /// The processor has AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn avx_lookup(table: [Real; TABLE], index: &[u16; LANES]) -> [Real; LANES] {
        avx::F32x8::lookup(table, index).to_array()
    }
}
