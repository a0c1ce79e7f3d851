//! The integration tests, one behaviour per file, linked into one test binary: each file of
//! `tests/` would otherwise be a program of its own, compiled and linked against the engine
//! and its dependencies once per file.
//!
//! `cargo test --release` runs them with the rest; `cargo test --release --test integration
//! free_fall` runs one file's tests. The soak (`soak.rs`) is ignored by default:
//! `cargo test --release --test integration soak -- --ignored`.

#[cfg(feature = "cli")]
mod cli_helper;
mod common;
#[cfg(feature = "viewer")]
mod viewer_helper;

mod bad_input;
mod bench_convergence;
mod bench_scenes_cli;
mod bench_stiffness;
mod cloth_on_sphere;
mod collider_pins;
mod colored_chebyshev;
mod construction_api;
mod determinism;
mod divergence;
mod doc_snippets;
mod elastic;
mod energy;
mod far_from_origin;
mod fingerprint;
mod free_fall;
mod friction_slope;
mod garment;
mod global_step;
mod hanging_rope;
mod import_cli;
mod jacobi_convergence;
mod kinematic_collider;
mod long_range;
mod mesh_collider;
mod mesh_order;
mod parser_abuse;
mod plot_cli;
mod self_collision;
mod shape_material;
mod shipped_meshes;
mod simd_paths;
mod soak;
mod soft_body_drop;
mod stage_order;
mod strain_limit;
mod surface_contact;
mod tearing;
mod thread_determinism;
mod tunneling;
mod viewer_no_display;
mod viewer_record;
mod viewer_screenshot;
mod wind_lift;
mod world_edit;
