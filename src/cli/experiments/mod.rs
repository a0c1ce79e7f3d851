//! The experiments behind `supple bench`: the stiffness sweep ([`stiffness`]), the step
//! benchmark on workload W ([`step`]) and the benchmark of the shipped scenes ([`scenes`]).

pub mod scenes;
pub mod step;
pub mod stiffness;
