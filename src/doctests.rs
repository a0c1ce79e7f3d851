//! The README and every page of the guide in `docs/`, compiled as doctests: each Rust block of
//! them must build (and, unless marked `no_run`, run). Blocks in other languages carry their
//! language (`sh`, `toml`, `text`, `python`, `json`) and are skipped by rustdoc; the TOML blocks
//! are loaded by `tests/integration/doc_snippets.rs`.

// The items only carry the pages as documentation; nothing uses them.
#![allow(dead_code)]

/// The README.
#[doc = include_str!("../README.md")]
struct Readme;

/// docs/README.md, the guide's index.
#[doc = include_str!("../docs/README.md")]
struct GuideIndex;

/// docs/scene-files.md.
#[doc = include_str!("../docs/scene-files.md")]
struct SceneFiles;

/// docs/cloth.md.
#[doc = include_str!("../docs/cloth.md")]
struct Cloth;

/// docs/soft-bodies.md.
#[doc = include_str!("../docs/soft-bodies.md")]
struct SoftBodies;

/// docs/collisions.md.
#[doc = include_str!("../docs/collisions.md")]
struct Collisions;

/// docs/materials.md.
#[doc = include_str!("../docs/materials.md")]
struct Materials;

/// docs/elastic.md.
#[doc = include_str!("../docs/elastic.md")]
struct Elastic;

/// docs/library.md.
#[doc = include_str!("../docs/library.md")]
struct Library;

/// docs/python.md.
#[doc = include_str!("../docs/python.md")]
struct Python;

/// docs/outputs.md.
#[doc = include_str!("../docs/outputs.md")]
struct Outputs;

/// docs/performance.md.
#[doc = include_str!("../docs/performance.md")]
struct Performance;

/// docs/architecture.md.
#[doc = include_str!("../docs/architecture.md")]
struct Architecture;
