//! How constraint families are projected, as opposed to what they compute: the schedule of a
//! family (its graph coloring into parallel blocks and batches of independent constraints), the
//! packed particle view the projection works on, the drivers (serial, colored, Jacobi), the
//! global step of `colored-global`, the thread team of the colored driver and the SIMD vectors
//! of the batched kernels.
//!
//! Nothing here knows a constraint's physics: a family plugs in through [`drivers::Kernel`].

pub mod drivers;
pub(crate) mod global;
pub mod schedule;
pub mod simd;
pub mod team;
pub mod view;

pub use drivers::{Correction, JacobiScratch, Kernel};
pub use schedule::{Blocks, LANES, MAX_BLOCKS};
pub use team::Team;
pub use view::{Positions, Slot, View};
