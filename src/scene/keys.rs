//! Key paths such as `cloth[0].stretch.k`, the line of the value they name, and the checks and
//! conversions that only a scene file needs (names of models, integer ranges, mesh files); every
//! other check is the construction API's, whose errors [`Ctx::at`] places in the file.

use super::SceneError;
use super::raw::{RawShape, RawStiffness};
use crate::bodies::cloth::BendKind;
use crate::constraints::Stiffness;
use crate::math::{Quat, Real, Vec3};
use crate::mesh::TriMesh;
use crate::mesh::obj::load_obj;
use crate::shape_matching::ClusterMaterial;
use crate::validate::{self, BuildError};
use std::fmt;
use std::path::PathBuf;
use toml::de::{DeTable, DeValue};

/// 1-based line and column of byte `offset` in `text`.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// One step of a key path: a table key or an array index.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// A key path such as `cloth[0].stretch.k`.
#[derive(Clone)]
pub(super) struct KeyPath<'a>(Vec<Seg<'a>>);

impl<'a> KeyPath<'a> {
    /// The top-level table `table`.
    pub(super) fn table(table: &'a str) -> Self {
        KeyPath(vec![Seg::Key(table)])
    }

    /// Item `index` of the array of tables `table`.
    pub(super) fn item(table: &'a str, index: usize) -> Self {
        KeyPath(vec![Seg::Key(table), Seg::Index(index)])
    }

    /// The key `key` inside this one.
    pub(super) fn key(&self, key: &'a str) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Key(key));
        p
    }

    /// Index `i` of the array at this key.
    pub(super) fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }

    /// This path followed by `rel`, a path like `stretch.k` or `pin[3]` (a [`BuildError`]'s key).
    fn join<'b>(&self, rel: &'b str) -> KeyPath<'b>
    where
        'a: 'b,
    {
        let mut p = KeyPath(self.0.clone());
        for part in rel.split('.').filter(|s| !s.is_empty()) {
            let (key, indices) = part.split_once('[').unwrap_or((part, ""));
            if !key.is_empty() {
                p.0.push(Seg::Key(key));
            }
            for i in indices
                .split('[')
                .filter_map(|i| i.trim_end_matches(']').parse().ok())
            {
                p.0.push(Seg::Index(i));
            }
        }
        p
    }
}

impl fmt::Display for KeyPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if n == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// What validation needs to report an error: the file, its text and its span-keeping parse.
pub(super) struct Ctx<'a> {
    /// The scene file, as shown in messages.
    pub(super) path: String,
    /// Its folder, which relative mesh paths start from.
    pub(super) dir: PathBuf,
    /// Its text.
    pub(super) text: &'a str,
    /// Its span-keeping parse, when it parses.
    pub(super) doc: Option<&'a DeTable<'a>>,
}

impl Ctx<'_> {
    /// The line of the value at `key` (or of the nearest table that holds it).
    fn line(&self, key: &KeyPath) -> Option<usize> {
        let mut span = None;
        let mut table = self.doc?;
        let mut array: Option<&[toml::Spanned<DeValue>]> = None;
        for seg in &key.0 {
            let value = match (*seg, array) {
                (Seg::Index(i), Some(items)) => items.get(i),
                (Seg::Key(k), None) => table
                    .iter()
                    .find(|(name, _)| name.get_ref() == k)
                    .map(|(_, v)| v),
                _ => None,
            };
            let Some(value) = value else { break };
            span = Some(value.span());
            array = None;
            match value.get_ref() {
                DeValue::Table(t) => table = t,
                DeValue::Array(a) => array = Some(a),
                _ => {}
            }
        }
        span.map(|s| line_col(self.text, s.start).0)
    }

    /// The error `message` at `key`.
    pub(super) fn invalid(&self, key: &KeyPath, message: impl Into<String>) -> SceneError {
        SceneError::Invalid {
            path: self.path.clone(),
            line: self.line(key),
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// A construction API error of the description built from the table at `key`, placed in
    /// the file.
    pub(super) fn at(&self, key: &KeyPath, e: BuildError) -> SceneError {
        self.invalid(&key.join(&e.key), e.message)
    }

    /// Fails unless `ok`, with `key` and `message`.
    pub(super) fn check(
        &self,
        ok: bool,
        key: &KeyPath,
        message: impl FnOnce() -> String,
    ) -> Result<(), SceneError> {
        if ok {
            Ok(())
        } else {
            Err(self.invalid(key, message()))
        }
    }

    /// A point or vector, checked finite.
    pub(super) fn vec3(&self, v: [Real; 3], key: &KeyPath) -> Result<Vec3, SceneError> {
        let v = Vec3::from(v);
        validate::finite(&v, "").map_err(|e| self.at(key, e))?;
        Ok(v)
    }

    /// A positive number of a key that only scene files have (a scale, a size to fit).
    pub(super) fn positive(&self, v: Real, key: &KeyPath, what: &str) -> Result<Real, SceneError> {
        validate::positive(v, "", what).map_err(|e| self.at(key, e))
    }

    /// A whole number that fits a `u32` and is at least `min`.
    pub(super) fn count(&self, v: i64, key: &KeyPath, min: i64) -> Result<u32, SceneError> {
        self.check(v >= min && v <= i64::from(u32::MAX), key, || {
            format!("= {v}: expected a whole number >= {min}")
        })?;
        Ok(v as u32)
    }

    /// An optional rotation given as degrees about x, y, z.
    pub(super) fn rotation(
        &self,
        r: Option<[Real; 3]>,
        key: &KeyPath,
    ) -> Result<Option<Quat>, SceneError> {
        r.map(|r| self.vec3(r, key).map(|_| euler_degrees(r)))
            .transpose()
    }

    /// A stiffness table, checked ([`validate::stiffness_model`]); `allow_kind` for cloth
    /// bending, which also returns its kind.
    pub(super) fn stiffness(
        &self,
        raw: &RawStiffness,
        key: &KeyPath,
        allow_kind: bool,
    ) -> Result<(Stiffness, BendKind), SceneError> {
        let kind = match (&raw.kind, allow_kind) {
            (None, _) => BendKind::Dihedral,
            (Some(k), true) => BendKind::from_name(k).map_err(|e| self.at(key, e))?,
            (Some(_), false) => {
                return Err(self.invalid(&key.key("kind"), "is only for cloth `bend`"));
            }
        };
        let keys = validate::StiffnessKeys {
            k: raw.k,
            compliance: raw.compliance,
            stiffness: raw.stiffness,
            damping: raw.damping,
            youngs: raw.youngs,
            poisson: raw.poisson,
        };
        let stiffness = validate::stiffness_model(&raw.model, keys).map_err(|e| self.at(key, e))?;
        Ok((stiffness, kind))
    }

    /// An optional stiffness table that is not cloth bending, rigid XPBD when absent.
    pub(super) fn stiffness_or_rigid(
        &self,
        raw: &Option<RawStiffness>,
        key: &KeyPath,
    ) -> Result<Stiffness, SceneError> {
        raw.as_ref().map_or(Ok(Stiffness::default()), |r| {
            Ok(self.stiffness(r, key, false)?.0)
        })
    }

    /// A shape-matching material table, with `default` for the keys it leaves out.
    pub(super) fn cluster_material(r: &RawShape, default: ClusterMaterial) -> ClusterMaterial {
        ClusterMaterial {
            stiffness: r.stiffness.unwrap_or(default.stiffness),
            beta: r.beta.unwrap_or(default.beta),
            plastic_yield: r.plastic_yield.unwrap_or(default.plastic_yield),
            creep: r.creep.unwrap_or(default.creep),
            max: r.max.unwrap_or(default.max),
        }
    }

    /// The OBJ file named by `file` at `key`, relative to the scene's directory, as it is
    /// (`clean` cleans it too: the mesh a soft body is made from, see [`TriMesh::load`]).
    pub(super) fn load_mesh(
        &self,
        file: &str,
        key: &KeyPath,
        clean: bool,
    ) -> Result<TriMesh, SceneError> {
        let path = self.dir.join(file);
        let mesh = if clean {
            TriMesh::load(&path)
        } else {
            load_obj(&path)
        };
        mesh.map_err(|source| SceneError::Mesh {
            path: self.path.clone(),
            line: self.line(key),
            key: key.to_string(),
            source: Box::new(source),
        })
    }
}

/// Rotation from XYZ Euler angles in degrees (about x, then y, then z, fixed axes).
fn euler_degrees(r: [Real; 3]) -> Quat {
    let [x, y, z] = r.map(Real::to_radians);
    Quat::from_euler_angles(x, y, z)
}
