//! Scene files: TOML in, a [`World`] out, with errors that name the file, the line and the key.
//!
//! The format is documented in the README ("Scene files"), with every default. Loading happens in
//! three steps: serde reads the document into the raw tables of `raw.rs` (unknown keys and wrong
//! types fail there, with the line from the parser); `build.rs` turns each table into a
//! description of the construction API ([`RopeDesc`](crate::RopeDesc),
//! [`ClothDesc`](crate::ClothDesc), [`SoftBodyDesc`](crate::SoftBodyDesc),
//! [`Collider`](crate::Collider)) and adds it to the world, which checks every value; and
//! `keys.rs` names the line of a bad value through a second, span-keeping parse.

mod build;
mod keys;
mod raw;

use crate::mesh::obj::ObjError;
use crate::world::World;
use keys::Ctx;
use raw::RawScene;
use std::path::Path;
use toml::de::DeTable;

/// A scene that failed to load.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{path}: cannot read the scene file: {source}")]
    Io {
        /// The scene file.
        path: String,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// The TOML is malformed, a key is unknown or a value has the wrong type.
    #[error("{path}:{line}: {message}{context}")]
    Syntax {
        /// The scene file.
        path: String,
        /// 1-based line of the error.
        line: usize,
        /// The parser's message.
        message: String,
        /// The column and the text of the line, when there is one.
        context: String,
    },
    /// A value is out of range or inconsistent.
    #[error("{path}{}: `{key}` {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        /// The scene file.
        path: String,
        /// 1-based line of the value (or of the table that lacks it), when known.
        line: Option<usize>,
        /// Full key path, such as `cloth[0].stretch.k`.
        key: String,
        /// What is wrong, and what was expected.
        message: String,
    },
    /// A mesh named by the scene failed to load.
    #[error("{path}{}: `{key}`: {source}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Mesh {
        /// The scene file.
        path: String,
        /// 1-based line of the key that names the mesh.
        line: Option<usize>,
        /// Full key path of the mesh key.
        key: String,
        /// The mesh's own error, which names its file and line.
        source: Box<ObjError>,
    },
}

/// A loaded scene.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The scene's name: the file stem.
    pub name: String,
    /// The world it describes, at frame 0.
    pub world: World,
}

/// Reads and builds the scene file at `path`.
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| SceneError::Io {
        path: shown.clone(),
        source,
    })?;
    let name = path
        .file_stem()
        .map_or_else(|| "scene".to_string(), |s| s.to_string_lossy().into_owned());
    let world = parse_scene(&text, path)?;
    Ok(Scene { name, world })
}

/// Builds a world from scene text; `path` names the file in messages and anchors relative mesh
/// paths.
pub fn parse_scene(text: &str, path: &Path) -> Result<World, SceneError> {
    let shown = path.display().to_string();
    let raw: RawScene = toml::from_str(text).map_err(|e| {
        let (line, col) = e.span().map_or((1, 1), |s| keys::line_col(text, s.start));
        let source_line = text.lines().nth(line - 1).unwrap_or("").trim();
        let context = if source_line.is_empty() {
            String::new()
        } else {
            format!(" (column {col}: `{source_line}`)")
        };
        SceneError::Syntax {
            path: shown.clone(),
            line,
            message: e.message().to_string(),
            context,
        }
    })?;
    let doc = DeTable::parse(text).ok();
    let ctx = Ctx {
        path: shown,
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        text,
        doc: doc.as_ref().map(|d| d.get_ref()),
    };
    build::build(&raw, &ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::SolverMethod;

    #[test]
    fn solver_method_parses() {
        for (name, method) in [
            ("colored", SolverMethod::Colored),
            ("gauss-seidel", SolverMethod::GaussSeidel),
            ("jacobi", SolverMethod::Jacobi),
            ("colored-chebyshev", SolverMethod::ColoredChebyshev),
            ("colored-global", SolverMethod::ColoredGlobal),
        ] {
            let text = format!("[solver]\nmethod = \"{name}\"\n");
            let world = parse_scene(&text, Path::new("s.toml")).unwrap();
            assert_eq!(world.params().method, method);
        }
    }

    #[test]
    fn solver_shake_parses_and_a_number_is_refused_at_its_key() {
        let world = parse_scene("[solver]\nshake = true\n", Path::new("s.toml")).unwrap();
        assert!(world.params().shake);
        let default = parse_scene("[solver]\n", Path::new("s.toml")).unwrap();
        assert!(!default.params().shake);
        let err = parse_scene("[solver]\nshake = 1\n", Path::new("s.toml")).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("s.toml:2") && message.contains("shake"),
            "{message}"
        );
    }
}
