//! The checks that the construction API makes on a description before it builds anything, and
//! the error it returns. The scene loader turns the same errors into messages that name the file,
//! the line and the full key path, so every rule is written once, here and in the descriptions'
//! `validate` methods.

use crate::constraints::Stiffness;
use crate::math::{Real, Vec3};

/// A description that cannot be built: the key that is wrong, as a path inside the description
/// (`mass`, `stretch.k`, `pins[3]`; the same names as a scene file's keys), and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{key}` {message}")]
pub struct BuildError {
    /// Path of the offending key inside the description.
    pub key: String,
    /// What is wrong, starting with the value given: `= -1: expected a mass in kg > 0`.
    pub message: String,
}

impl BuildError {
    /// An error at `key` saying `message`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        BuildError {
            key: key.into(),
            message: message.into(),
        }
    }

    /// The same error, with its key inside `parent` (`stretch` + `k` gives `stretch.k`).
    pub fn within(mut self, parent: &str) -> Self {
        self.key = if parent.is_empty() {
            self.key
        } else if self.key.is_empty() {
            parent.to_string()
        } else if self.key.starts_with('[') {
            format!("{parent}{}", self.key)
        } else {
            format!("{parent}.{}", self.key)
        };
        self
    }
}

/// Result of a check.
pub type Checked<T = ()> = Result<T, BuildError>;

/// Fails at `key` with `message()` unless `ok`.
pub fn check(ok: bool, key: &str, message: impl FnOnce() -> String) -> Checked {
    if ok {
        Ok(())
    } else {
        Err(BuildError::new(key, message()))
    }
}

/// `v` is finite and > 0; `what` names the quantity (`a mass in kg`).
pub fn positive(v: Real, key: &str, what: &str) -> Checked<Real> {
    check(v.is_finite() && v > 0.0, key, || {
        format!("= {v}: expected {what} > 0")
    })?;
    Ok(v)
}

/// `v` is finite and ≥ 0.
pub fn non_negative(v: Real, key: &str) -> Checked<Real> {
    check(v.is_finite() && v >= 0.0, key, || {
        format!("= {v}: expected a value >= 0")
    })?;
    Ok(v)
}

/// `v` is in [0, 1].
pub fn in_unit(v: Real, key: &str) -> Checked<Real> {
    check((0.0..=1.0).contains(&v), key, || {
        format!("= {v}: expected a value in [0, 1]")
    })?;
    Ok(v)
}

/// Every coordinate of `v` is finite.
pub fn finite(v: &Vec3, key: &str) -> Checked {
    check(v.iter().all(|c| c.is_finite()), key, || {
        format!("= {:?}: expected finite numbers", <[Real; 3]>::from(*v))
    })
}

/// `v` is at least `min`.
pub fn at_least(v: u32, min: u32, key: &str) -> Checked<u32> {
    check(v >= min, key, || {
        format!("= {v}: expected a whole number >= {min}")
    })?;
    Ok(v)
}

/// A body name: not empty, letters, digits, `-`, `_` and `.`, not starting with `.` (it names
/// export files).
pub fn name(name: &str, key: &str) -> Checked {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    check(ok, key, || {
        format!("= \"{name}\": expected a name of letters, digits, '-', '_' or '.'")
    })
}

/// A stiffness: PBD `k` in [0, 1]; XPBD compliance and damping ≥ 0; an elastic modulus > 0 and
/// damping ≥ 0. Keys are `k`, `compliance`, `stiffness` and `damping`, inside `key`.
pub fn stiffness(s: &Stiffness, key: &str) -> Checked {
    let ranges = || match *s {
        Stiffness::Pbd { k } | Stiffness::PbdCorrected { k } => in_unit(k, "k").map(drop),
        Stiffness::Xpbd {
            compliance,
            damping,
        } => {
            non_negative(compliance, "compliance")?;
            non_negative(damping, "damping").map(drop)
        }
        Stiffness::Elastic { stiffness, damping } => {
            positive(stiffness, "stiffness", "a modulus")?;
            non_negative(damping, "damping").map(drop)
        }
        Stiffness::ElasticSolid { .. } => Err(BuildError::new(
            "youngs",
            "is for the tets of soft bodies only (`volume` of model \"tets\"): give this one `stiffness` instead",
        )),
    };
    ranges().map_err(|e| e.within(key))
}

/// The stiffness at `key` of a soft body's tets, which may be an elastic solid: Young's modulus
/// `youngs` > 0 and Poisson ratio `poisson` in (−1, ½) (the ends make the material infinitely
/// stiff in volume or unstable), `damping` ≥ 0; otherwise as [`stiffness`].
pub fn tet_stiffness(s: &Stiffness, key: &str) -> Checked {
    let Stiffness::ElasticSolid {
        youngs,
        poisson,
        damping,
    } = *s
    else {
        return stiffness(s, key);
    };
    let ranges = || {
        positive(youngs, "youngs", "a Young's modulus in Pa")?;
        check(poisson > -1.0 && poisson < 0.5, "poisson", || {
            format!("= {poisson}: expected a Poisson ratio in (-1, 0.5), both ends excluded")
        })?;
        non_negative(damping, "damping").map(drop)
    };
    ranges().map_err(|e| e.within(key))
}

/// A stiffness at `key` that may not be `elastic`, because the constraint it is given to has no
/// elastic form (`what` says which, and what to use instead), in range otherwise.
pub fn stiffness_not_elastic(s: &Stiffness, key: &str, what: &str) -> Checked {
    check(!matches!(s, Stiffness::Elastic { .. }), key, || {
        format!("has model \"elastic\", which {what}")
    })?;
    stiffness(s, key)
}

/// The numbers a stiffness table gives, by key (`None` for a key left out).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StiffnessKeys {
    /// `k`, the PBD stiffness.
    pub k: Option<Real>,
    /// `compliance`, XPBD.
    pub compliance: Option<Real>,
    /// `stiffness`, the elastic modulus.
    pub stiffness: Option<Real>,
    /// `damping`, XPBD and elastic.
    pub damping: Option<Real>,
    /// `youngs`, Young's modulus of an elastic solid (soft bodies' tets).
    pub youngs: Option<Real>,
    /// `poisson`, Poisson ratio of an elastic solid (soft bodies' tets).
    pub poisson: Option<Real>,
}

/// The stiffness a scene table (or a binding's dict) names: `model` (`pbd`, `pbd_corrected`,
/// `xpbd` or `elastic`) with its keys, `k` for the PBD models (required), `compliance` and
/// `damping` for XPBD (0 when left out), `stiffness` (required) and `damping` (0 when left out)
/// for elastic, each in range. A key that the model does not take is an error at that key; a
/// missing `k` or `stiffness` is an error at the table itself (key `""`).
pub fn stiffness_model(model: &str, keys: StiffnessKeys) -> Checked<Stiffness> {
    let StiffnessKeys {
        k,
        compliance,
        stiffness: modulus,
        damping,
        youngs,
        poisson,
    } = keys;
    let forbid = |present: bool, key: &str| {
        check(!present, key, || {
            format!("does not apply to model \"{model}\"")
        })
    };
    let s = match model {
        "pbd" | "pbd_corrected" => {
            forbid(compliance.is_some(), "compliance")?;
            forbid(damping.is_some(), "damping")?;
            forbid(modulus.is_some(), "stiffness")?;
            forbid(youngs.is_some(), "youngs")?;
            forbid(poisson.is_some(), "poisson")?;
            let k = k.ok_or_else(|| {
                BuildError::new(
                    "",
                    format!("has model \"{model}\" but no `k`: expected k in [0, 1]"),
                )
            })?;
            if model == "pbd" {
                Stiffness::Pbd { k }
            } else {
                Stiffness::PbdCorrected { k }
            }
        }
        "xpbd" => {
            forbid(k.is_some(), "k")?;
            forbid(modulus.is_some(), "stiffness")?;
            forbid(youngs.is_some(), "youngs")?;
            forbid(poisson.is_some(), "poisson")?;
            Stiffness::Xpbd {
                compliance: compliance.unwrap_or(0.0),
                damping: damping.unwrap_or(0.0),
            }
        }
        "elastic" if youngs.is_some() || poisson.is_some() => {
            forbid(k.is_some(), "k")?;
            forbid(compliance.is_some(), "compliance")?;
            forbid(modulus.is_some(), "stiffness")?;
            let needs = |v: Option<Real>, name: &str, what: &str| {
                v.ok_or_else(|| {
                    BuildError::new(
                        "",
                        format!("has model \"elastic\" with `youngs` or `poisson` (an elastic solid) but no `{name}`: expected {what}"),
                    )
                })
            };
            let s = Stiffness::ElasticSolid {
                youngs: needs(youngs, "youngs", "a Young's modulus > 0 in Pa")?,
                poisson: needs(poisson, "poisson", "a Poisson ratio in (-1, 0.5)")?,
                damping: damping.unwrap_or(0.0),
            };
            tet_stiffness(&s, "")?;
            return Ok(s);
        }
        "elastic" => {
            forbid(k.is_some(), "k")?;
            forbid(compliance.is_some(), "compliance")?;
            let stiffness = modulus.ok_or_else(|| {
                BuildError::new(
                    "",
                    "has model \"elastic\" but no `stiffness`: expected a modulus > 0 (EA in N for a rope, E·t in N/m for cloth stretch and shear, D in N·m for cloth bending; EI in N·m² for rope bending), or `youngs` and `poisson` for the tets of a soft body",
                )
            })?;
            Stiffness::Elastic {
                stiffness,
                damping: damping.unwrap_or(0.0),
            }
        }
        other => {
            return Err(BuildError::new(
                "model",
                format!(
                    "= \"{other}\": expected \"pbd\", \"pbd_corrected\", \"xpbd\" or \"elastic\""
                ),
            ));
        }
    };
    stiffness(&s, "")?;
    Ok(s)
}

/// `i` indexes one of `len` vertices.
pub fn vertex(i: usize, len: usize, key: &str) -> Checked {
    check(i < len, key, || {
        format!("= {i}: expected a vertex index in 0..{len} (the mesh's vertices, 0-based)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elastic_tables_name_their_wrong_key() {
        let keys = |stiffness, compliance| StiffnessKeys {
            stiffness,
            compliance,
            ..StiffnessKeys::default()
        };
        assert_eq!(
            stiffness_model("elastic", keys(Some(500.0), None)),
            Ok(Stiffness::Elastic {
                stiffness: 500.0,
                damping: 0.0
            })
        );
        let missing = stiffness_model("elastic", keys(None, None)).unwrap_err();
        assert_eq!(missing.key, "");
        assert!(missing.message.contains("no `stiffness`"));
        let wrong = stiffness_model("elastic", keys(Some(1.0), Some(1e-3))).unwrap_err();
        assert_eq!(wrong.key, "compliance");
        let negative = stiffness_model("elastic", keys(Some(-1.0), None)).unwrap_err();
        assert_eq!(negative.key, "stiffness");
        assert_eq!(
            stiffness_model("xpbd", keys(Some(1.0), None))
                .unwrap_err()
                .key,
            "stiffness"
        );
        let cross_bend = Stiffness::Elastic {
            stiffness: 1.0,
            damping: 0.0,
        };
        let e = stiffness_not_elastic(&cross_bend, "bend", "cross-distance bending does not take")
            .unwrap_err();
        assert_eq!(e.key, "bend");
    }

    #[test]
    fn keys_nest_under_their_parents() {
        let e = BuildError::new("k", "= 2: expected a value in [0, 1]");
        assert_eq!(e.clone().within("stretch").key, "stretch.k");
        assert_eq!(BuildError::new("[3]", "x").within("pins").key, "pins[3]");
        assert_eq!(BuildError::new("k", "x").within("").key, "k");
        assert_eq!(BuildError::new("", "x").within("bend").key, "bend");
        let keys = StiffnessKeys {
            k: Some(2.0),
            ..StiffnessKeys::default()
        };
        let range = stiffness_model("pbd", keys).unwrap_err();
        assert_eq!(range.within("stretch").key, "stretch.k");
        assert_eq!(
            e.within("stretch").to_string(),
            "`stretch.k` = 2: expected a value in [0, 1]"
        );
    }

    #[test]
    fn stiffness_ranges_are_checked_per_model() {
        let bad_k = stiffness(&Stiffness::Pbd { k: 1.5 }, "bend").unwrap_err();
        assert_eq!(bad_k.key, "bend.k");
        let bad_compliance = Stiffness::Xpbd {
            compliance: -1.0,
            damping: 0.0,
        };
        assert_eq!(
            stiffness(&bad_compliance, "stretch").unwrap_err().key,
            "stretch.compliance"
        );
        let bad_damping = Stiffness::Xpbd {
            compliance: 0.0,
            damping: -1.0,
        };
        assert_eq!(
            stiffness(&bad_damping, "shear").unwrap_err().key,
            "shear.damping"
        );
        assert!(stiffness(&Stiffness::default(), "stretch").is_ok());
        let bad_modulus = Stiffness::Elastic {
            stiffness: 0.0,
            damping: 0.0,
        };
        assert_eq!(
            stiffness(&bad_modulus, "bend").unwrap_err().key,
            "bend.stiffness"
        );
        let solid = |youngs, poisson| StiffnessKeys {
            youngs,
            poisson,
            ..StiffnessKeys::default()
        };
        assert_eq!(
            stiffness_model("elastic", solid(Some(1e5), Some(0.3))),
            Ok(Stiffness::ElasticSolid {
                youngs: 1e5,
                poisson: 0.3,
                damping: 0.0
            })
        );
        for (keys, key) in [
            (solid(Some(1e5), Some(0.5)), "poisson"),
            (solid(Some(1e5), Some(-1.0)), "poisson"),
            (solid(Some(0.0), Some(0.3)), "youngs"),
            (solid(Some(-1e5), Some(0.3)), "youngs"),
            (solid(None, Some(0.3)), ""),
            (
                StiffnessKeys {
                    stiffness: Some(1.0),
                    ..solid(Some(1e5), Some(0.3))
                },
                "stiffness",
            ),
        ] {
            assert_eq!(stiffness_model("elastic", keys).unwrap_err().key, key);
        }
        let no_youngs = stiffness_model("elastic", solid(None, Some(0.3))).unwrap_err();
        assert!(
            no_youngs.message.contains("no `youngs`"),
            "{}",
            no_youngs.message
        );
        let solid = stiffness_model("elastic", solid(Some(1e5), Some(0.3))).unwrap();
        assert_eq!(
            stiffness(&solid, "stretch").unwrap_err().key,
            "stretch.youngs"
        );
        assert!(tet_stiffness(&solid, "volume").is_ok());
        assert!(positive(Real::NAN, "mass", "a mass in kg").is_err());
        assert!(name(".hidden", "name").is_err() && name("cloth-1_a.b", "name").is_ok());
    }
}
