//! The experiments behind `supple bench`: the stiffness sweep ([`stiffness`]) and the step
//! benchmark on workload W ([`step`]).

pub mod step;
pub mod stiffness;
