//! The experiments behind `supple bench`: the stiffness sweep ([`stiffness`]), the step
//! benchmark on workload W ([`step`]), the benchmark of the shipped scenes ([`scenes`]) and the
//! convergence of each method on W ([`convergence`]).

pub mod convergence;
pub mod scenes;
pub mod step;
pub mod stiffness;
