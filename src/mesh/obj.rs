//! Wavefront OBJ import.
//!
//! A file is read in two passes:
//! 1. A line check walks the text and rejects anything that is not an OBJ mesh with an error
//!    naming the file and the 1-based line. It writes a reduced copy of the file holding only
//!    `v x y z` lines and `f` lines with position indices. Every other statement of the OBJ
//!    specification (texture coordinates, normals, groups, materials, polylines, free-form
//!    geometry) is skipped: a simulation needs positions and faces only, and obj-rs panics on
//!    free-form statements and rejects group or material lines it does not expect.
//! 2. obj-rs (`obj::raw::parse_obj`) parses the reduced copy; its polygons are fan-triangulated.
//!
//! Vertices keep the file's order (no welding, no reordering): pins and other per-vertex data
//! refer to file vertex indices. Repairs are in [`super::clean`].

use std::fmt;
use std::path::{Path, PathBuf};

use obj::raw::object::Polygon;

use super::{Real, TriMesh, Vec3};

/// A line of a file: its path and 1-based line number, displayed as `path:line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileLine {
    /// The file.
    pub path: PathBuf,
    /// 1-based line number.
    pub number: usize,
}

impl fmt::Display for FileLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.number)
    }
}

/// Why an OBJ file could not be imported. Every message names the file, and the line where
/// there is one.
#[derive(thiserror::Error, Debug)]
pub enum ObjError {
    /// The file is missing or could not be read.
    #[error("{}: cannot read the file: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file holds nothing but whitespace.
    #[error("{}: the file is empty (expected OBJ text with `v` and `f` lines)", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file is binary, not UTF-8, or holds control characters.
    #[error("{}: not an OBJ text file ({reason})", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
        /// What is not text.
        reason: String,
    },
    /// A vertex coordinate does not parse as a number.
    #[error("{at}: coordinate '{token}' is not a number (expected a decimal number like -1.5e-3)")]
    NonNumeric {
        /// The file and line.
        at: FileLine,
        /// The offending text.
        token: String,
    },
    /// A vertex coordinate is NaN or infinite (also when it overflows 32-bit floats).
    #[error("{at}: coordinate '{token}' is not finite (expected a finite 32-bit number)")]
    NonFinite {
        /// The file and line.
        at: FileLine,
        /// The offending text.
        token: String,
    },
    /// A `v` line has fewer than three coordinates.
    #[error("{at}: vertex needs 3 coordinates (v x y z), found {found}")]
    TooFewCoordinates {
        /// The file and line.
        at: FileLine,
        /// How many there are.
        found: usize,
    },
    /// A face vertex is not `v`, `v/vt`, `v//vn` or `v/vt/vn` with integer indices.
    #[error(
        "{at}: face vertex '{token}' is not an index (expected v, v/vt, v//vn or v/vt/vn with integers)"
    )]
    BadFaceVertex {
        /// The file and line.
        at: FileLine,
        /// The offending text.
        token: String,
    },
    /// A face uses position index 0 (OBJ indices start at 1).
    #[error(
        "{at}: face index 0 is invalid (expected 1 for the first vertex, or a negative index counting back from the last)"
    )]
    ZeroIndex {
        /// The file and line.
        at: FileLine,
    },
    /// A face index points past the vertices defined before its line.
    #[error(
        "{at}: face index {index} is out of range ({})",
        describe_vertex_count(*defined, *total)
    )]
    IndexOutOfRange {
        /// The file and line.
        at: FileLine,
        /// The index as written.
        index: i64,
        /// Vertices defined before the face's line.
        defined: usize,
        /// Vertices in the whole file.
        total: usize,
    },
    /// A face lists fewer than three vertices.
    #[error("{at}: face needs at least 3 vertices, found {found}")]
    TooFewFaceVertices {
        /// The file and line.
        at: FileLine,
        /// How many there are.
        found: usize,
    },
    /// A line starts with a word that is not an OBJ statement.
    #[error(
        "{at}: unknown statement '{statement}' (expected an OBJ statement such as v, f, vt, vn, g or usemtl)"
    )]
    UnknownStatement {
        /// The file and line.
        at: FileLine,
        /// The statement.
        statement: String,
    },
    /// The file has no `f` lines.
    #[error("{}: the file has no faces (expected at least one `f` line)", path.display())]
    NoFaces {
        /// The file.
        path: PathBuf,
    },
    /// obj-rs rejected the reduced text although the line check accepted it (a bug here).
    #[error("{}: the OBJ parser failed after the line check passed: {message}", path.display())]
    Parser {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}

fn describe_vertex_count(defined: usize, total: usize) -> String {
    if defined == total {
        format!("the file has {total} vertices")
    } else {
        format!(
            "{defined} of the file's {total} vertices come before this line; a face can only use earlier ones"
        )
    }
}

/// Statements of the OBJ specification that carry nothing a simulation mesh needs.
const SKIPPED_STATEMENTS: &[&str] = &[
    "vt",
    "vn",
    "vp",
    "p",
    "l",
    "o",
    "g",
    "s",
    "mg",
    "usemtl",
    "mtllib",
    "maplib",
    "usemap",
    "cstype",
    "deg",
    "bmat",
    "step",
    "curv",
    "curv2",
    "surf",
    "parm",
    "trim",
    "hole",
    "scrv",
    "sp",
    "end",
    "con",
    "bevel",
    "c_interp",
    "d_interp",
    "lod",
    "shadow_obj",
    "trace_obj",
    "ctech",
    "stech",
    "call",
    "csh",
];

/// Reads and parses the OBJ file at `path`.
pub fn load_obj(path: &Path) -> Result<TriMesh, ObjError> {
    let bytes = std::fs::read(path).map_err(|source| ObjError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    parse_obj(&bytes, path)
}

/// Parses OBJ file contents; `path` is used only in error messages.
pub fn parse_obj(text_bytes: &[u8], path: &Path) -> Result<TriMesh, ObjError> {
    let text = decode_text(text_bytes, path)?;
    let reduced = check_lines(text, path)?;
    let raw = obj::raw::parse_obj(reduced.as_bytes()).map_err(|error| ObjError::Parser {
        path: path.to_path_buf(),
        message: error.to_string(),
    })?;
    let positions = raw
        .positions
        .iter()
        .map(|&(x, y, z, _w)| Vec3::new(x, y, z))
        .collect();
    let mut triangles = Vec::new();
    for polygon in &raw.polygons {
        fan_triangulate(&position_indices(polygon), &mut triangles);
    }
    if triangles.is_empty() {
        return Err(ObjError::NoFaces {
            path: path.to_path_buf(),
        });
    }
    Ok(TriMesh {
        positions,
        triangles,
    })
}

/// Checks that the bytes are UTF-8 text without control characters and not blank.
fn decode_text<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a str, ObjError> {
    let not_text = |reason: String| ObjError::NotText {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|error| not_text(format!("invalid UTF-8 at byte {}", error.valid_up_to())))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let control = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c'));
    if let Some((offset, c)) = control {
        let line = text[..offset].matches('\n').count() + 1;
        return Err(not_text(format!(
            "control character U+{:04X} on line {line}",
            u32::from(c)
        )));
    }
    if text.trim().is_empty() {
        return Err(ObjError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(text)
}

/// The words of a line without its comment.
fn tokens(line: &str) -> std::str::SplitWhitespace<'_> {
    line.split('#')
        .next()
        .unwrap_or_default()
        .split_whitespace()
}

/// Validates every line and returns the reduced text for obj-rs: `v x y z` and `f` lines with
/// position indices only, in file order.
fn check_lines(text: &str, path: &Path) -> Result<String, ObjError> {
    let total = text
        .lines()
        .filter(|line| tokens(line).next() == Some("v"))
        .count();
    let mut defined = 0;
    let mut reduced = String::with_capacity(text.len());
    for (index, line) in text.lines().enumerate() {
        let at = || FileLine {
            path: path.to_path_buf(),
            number: index + 1,
        };
        let mut words = tokens(line);
        let Some(statement) = words.next() else {
            continue;
        };
        let args: Vec<&str> = words.collect();
        match statement {
            "v" => {
                check_vertex(&args, at)?;
                reduced.push('v');
                for coordinate in &args[..3] {
                    reduced.push(' ');
                    reduced.push_str(coordinate);
                }
                defined += 1;
            }
            "f" => {
                if args.len() < 3 {
                    return Err(ObjError::TooFewFaceVertices {
                        at: at(),
                        found: args.len(),
                    });
                }
                reduced.push('f');
                for corner in &args {
                    reduced.push(' ');
                    reduced.push_str(check_face_vertex(corner, defined, total, at)?);
                }
            }
            _ if SKIPPED_STATEMENTS.contains(&statement) => continue,
            _ => {
                return Err(ObjError::UnknownStatement {
                    at: at(),
                    statement: statement.to_string(),
                });
            }
        }
        reduced.push('\n');
    }
    Ok(reduced)
}

/// Checks the arguments of a `v` line: at least x, y, z (extra values such as `w` or vertex
/// colours are allowed), all finite numbers.
fn check_vertex(args: &[&str], at: impl Fn() -> FileLine) -> Result<(), ObjError> {
    if args.len() < 3 {
        return Err(ObjError::TooFewCoordinates {
            at: at(),
            found: args.len(),
        });
    }
    for &token in args {
        let value: Real = token.parse().map_err(|_| ObjError::NonNumeric {
            at: at(),
            token: token.to_string(),
        })?;
        if !value.is_finite() {
            return Err(ObjError::NonFinite {
                at: at(),
                token: token.to_string(),
            });
        }
    }
    Ok(())
}

/// Checks one face vertex (`v`, `v/vt`, `v//vn` or `v/vt/vn`) against the `defined` vertices
/// before its line and returns its position index token.
fn check_face_vertex(
    corner: &str,
    defined: usize,
    total: usize,
    at: impl Fn() -> FileLine,
) -> Result<&str, ObjError> {
    let is_index = |part: &str| part.parse::<i64>().is_ok();
    let parts: Vec<&str> = corner.split('/').collect();
    let well_formed = match parts[..] {
        [_] => true,
        [_, vt] => is_index(vt),
        [_, vt, vn] => (vt.is_empty() || is_index(vt)) && is_index(vn),
        _ => false,
    };
    let position = parts[0];
    let index = match position.parse::<i64>() {
        Ok(index) if well_formed => index,
        _ => {
            return Err(ObjError::BadFaceVertex {
                at: at(),
                token: corner.to_string(),
            });
        }
    };
    if index == 0 {
        return Err(ObjError::ZeroIndex { at: at() });
    }
    // Triangles store u32 indices, so a vertex past 2^32 is out of range as well.
    let limit = (defined as u64).min(1 << 32);
    if index.unsigned_abs() > limit {
        return Err(ObjError::IndexOutOfRange {
            at: at(),
            index,
            defined,
            total,
        });
    }
    Ok(position)
}

/// The 0-based position indices of a polygon's corners.
fn position_indices(polygon: &Polygon) -> Vec<usize> {
    match polygon {
        Polygon::P(corners) => corners.clone(),
        Polygon::PT(corners) | Polygon::PN(corners) => corners.iter().map(|c| c.0).collect(),
        Polygon::PTN(corners) => corners.iter().map(|c| c.0).collect(),
    }
}

/// Splits a convex polygon into the triangles `(c0, ck, ck+1)`.
fn fan_triangulate(corners: &[usize], triangles: &mut Vec<[u32; 3]>) {
    // `check_face_vertex` bounded every index below 2^32, so the casts are lossless.
    for pair in corners[1..].windows(2) {
        triangles.push([corners[0] as u32, pair[0] as u32, pair[1] as u32]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<TriMesh, ObjError> {
        parse_obj(text.as_bytes(), Path::new("meshes/x.obj"))
    }

    fn triangles(text: &str) -> Vec<[u32; 3]> {
        parse(text).unwrap().triangles
    }

    fn message(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    const SQUARE: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

    // Accepted forms.

    #[test]
    fn triangle_keeps_positions_and_indices() {
        let mesh = parse("v 0 0 0\nv 1.5 -2 3e-1\nv 0 1 0\nf 1 2 3\n").unwrap();
        assert_eq!(
            mesh.positions,
            vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.5, -2.0, 0.3),
                Vec3::new(0.0, 1.0, 0.0)
            ]
        );
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
    }

    #[test]
    fn quad_becomes_two_triangles() {
        assert_eq!(
            triangles(&format!("{SQUARE}f 1 2 3 4\n")),
            vec![[0, 1, 2], [0, 2, 3]]
        );
    }

    #[test]
    fn ngon_is_fan_triangulated() {
        let text = format!("{SQUARE}v 0.5 1.5 0\nv -0.5 0.5 0\nf 1 2 3 5 4 6\n");
        assert_eq!(
            triangles(&text),
            vec![[0, 1, 2], [0, 2, 4], [0, 4, 3], [0, 3, 5]]
        );
    }

    #[test]
    fn texture_and_normal_index_forms_give_the_same_triangles() {
        let attributes = "vt 0 0\nvt 1 0\nvt 1 1\nvn 0 0 1\n";
        for face in [
            "f 1/1 2/2 3/3 4/1",
            "f 1//1 2//1 3//1 4//1",
            "f 1/1/1 2/2/1 3/3/1 4/1/1",
            "f 1/1/1 2//1 3 4/2",
        ] {
            let text = format!("{SQUARE}{attributes}{face}\n");
            assert_eq!(triangles(&text), vec![[0, 1, 2], [0, 2, 3]], "{face}");
        }
    }

    #[test]
    fn negative_indices_count_back_from_the_last_vertex_so_far() {
        let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n\
                    v 0 0 1\nv 1 0 1\nv 0 1 1\nf -3 -2 -1\nf -6/-1 -1 2\n";
        assert_eq!(triangles(text), vec![[0, 1, 2], [3, 4, 5], [0, 5, 1]]);
    }

    #[test]
    fn grouping_material_and_smoothing_lines_are_accepted() {
        let text = format!(
            "mtllib a.mtl b.mtl\no my object\ng\ng left arm\ns off\ns 1\ns group\n\
             usemtl red paint\nusemtl\n{SQUARE}mg 1 0.5\nf 1 2 3\n"
        );
        assert_eq!(triangles(&text), vec![[0, 1, 2]]);
    }

    #[test]
    fn comments_blank_lines_and_crlf_are_accepted() {
        let text = "# header\r\n\r\n   \r\nv 0 0 0 # origin\r\nv 1 0 0\r\n\tv 0 1 0\r\n\
                    f 1 2 3#tail\r\n#end";
        let mesh = parse(text).unwrap();
        assert_eq!(mesh.positions[2], Vec3::new(0.0, 1.0, 0.0));
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
    }

    #[test]
    fn polylines_points_and_free_form_statements_are_ignored() {
        let text = format!(
            "{SQUARE}l 1 2 3\nl 1/1 2/2\np 1\nvp 0.5 0.5\ncstype rat bspline\ndeg 3\n\
             curv 0 1 1 2 3 4\nparm u 0 0 0 0 1 1 1 1\nend\nlod 3\nbevel on\nc_interp off\n\
             f 4 3 2\n"
        );
        assert_eq!(triangles(&text), vec![[3, 2, 1]]);
    }

    #[test]
    fn extra_vertex_values_are_ignored() {
        let mesh = parse("v 1 2 3 0.5\nv 4 5 6 1 0 0\nv 7 8 9\nf 1 2 3\n").unwrap();
        assert_eq!(
            mesh.positions,
            vec![
                Vec3::new(1.0, 2.0, 3.0),
                Vec3::new(4.0, 5.0, 6.0),
                Vec3::new(7.0, 8.0, 9.0)
            ]
        );
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        assert_eq!(
            triangles("\u{feff}v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"),
            vec![[0, 1, 2]]
        );
    }

    #[test]
    fn duplicate_and_unused_vertices_are_kept_in_file_order() {
        let mesh = parse("v 5 5 5\nv 0 0 0\nv 0 0 0\nv 1 0 0\nf 2 4 3\n").unwrap();
        assert_eq!(mesh.positions.len(), 4);
        assert_eq!(mesh.positions[0], Vec3::new(5.0, 5.0, 5.0));
        assert_eq!(mesh.triangles, vec![[1, 3, 2]]);
    }

    // Errors.

    #[test]
    fn missing_file_reports_the_os_error() {
        let path = Path::new("/nonexistent/supple/missing.obj");
        let error = load_obj(path).unwrap_err();
        assert!(matches!(error, ObjError::Unreadable { .. }));
        assert!(
            error.to_string().starts_with(
                "/nonexistent/supple/missing.obj: cannot read the file: No such file or directory"
            ),
            "{error}"
        );
    }

    #[test]
    fn directory_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let error = load_obj(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("cannot read the file: Is a directory"),
            "{error}"
        );
    }

    #[test]
    fn empty_and_blank_files_are_empty() {
        let expected = "meshes/x.obj: the file is empty (expected OBJ text with `v` and `f` lines)";
        assert_eq!(message(""), expected);
        assert_eq!(message(" \r\n\n\t\n"), expected);
    }

    #[test]
    fn binary_data_is_not_text() {
        let path = Path::new("meshes/x.obj");
        let invalid_utf8 = parse_obj(b"v 0 0 0\n\xff\xfe\x00\x01", path).unwrap_err();
        assert_eq!(
            invalid_utf8.to_string(),
            "meshes/x.obj: not an OBJ text file (invalid UTF-8 at byte 8)"
        );
        let utf16 = parse_obj(b"v\x00 \x001\x00", path).unwrap_err();
        assert_eq!(
            utf16.to_string(),
            "meshes/x.obj: not an OBJ text file (control character U+0000 on line 1)"
        );
        assert_eq!(
            message("v 0 0 0\nv 1 0 0\x07\n"),
            "meshes/x.obj: not an OBJ text file (control character U+0007 on line 2)"
        );
    }

    #[test]
    fn non_numeric_coordinate() {
        assert_eq!(
            message("v 0 0 0\n\nv 1 one 0\n"),
            "meshes/x.obj:3: coordinate 'one' is not a number (expected a decimal number like -1.5e-3)"
        );
    }

    #[test]
    fn non_finite_coordinates() {
        for token in ["nan", "inf", "-infinity", "1e39"] {
            assert_eq!(
                message(&format!("v 0 {token} 0\n")),
                format!(
                    "meshes/x.obj:1: coordinate '{token}' is not finite (expected a finite 32-bit number)"
                )
            );
        }
    }

    #[test]
    fn too_few_coordinates() {
        assert_eq!(
            message("v 0 0 0\nv 1 2\n"),
            "meshes/x.obj:2: vertex needs 3 coordinates (v x y z), found 2"
        );
        assert_eq!(
            message("v\n"),
            "meshes/x.obj:1: vertex needs 3 coordinates (v x y z), found 0"
        );
    }

    #[test]
    fn face_index_out_of_range() {
        let cube_corners = "v 0 0 0\n".repeat(8);
        assert_eq!(
            message(&format!("{cube_corners}f 1 2 99\n")),
            "meshes/x.obj:9: face index 99 is out of range (the file has 8 vertices)"
        );
        assert_eq!(
            message(&format!("{cube_corners}f -9 1 2\n")),
            "meshes/x.obj:9: face index -9 is out of range (the file has 8 vertices)"
        );
        assert_eq!(
            message("v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n"),
            "meshes/x.obj:3: face index 3 is out of range \
             (2 of the file's 3 vertices come before this line; a face can only use earlier ones)"
        );
    }

    #[test]
    fn face_with_fewer_than_three_vertices() {
        assert_eq!(
            message(&format!("{SQUARE}f 1 2\n")),
            "meshes/x.obj:5: face needs at least 3 vertices, found 2"
        );
        assert_eq!(
            message(&format!("{SQUARE}f\n")),
            "meshes/x.obj:5: face needs at least 3 vertices, found 0"
        );
    }

    #[test]
    fn zero_index() {
        assert_eq!(
            message(&format!("{SQUARE}f 0 1 2\n")),
            "meshes/x.obj:5: face index 0 is invalid \
             (expected 1 for the first vertex, or a negative index counting back from the last)"
        );
    }

    #[test]
    fn malformed_face_vertex() {
        for token in [
            "x",
            "1.5",
            "1/",
            "1//",
            "1/x/1",
            "1/1/1/1",
            "/1",
            "99999999999999999999",
        ] {
            assert_eq!(
                message(&format!("{SQUARE}f 1 2 {token}\n")),
                format!(
                    "meshes/x.obj:5: face vertex '{token}' is not an index \
                     (expected v, v/vt, v//vn or v/vt/vn with integers)"
                )
            );
        }
    }

    #[test]
    fn unknown_statement() {
        assert_eq!(
            message(&format!("{SQUARE}vv 1 2 3\n")),
            "meshes/x.obj:5: unknown statement 'vv' \
             (expected an OBJ statement such as v, f, vt, vn, g or usemtl)"
        );
    }

    #[test]
    fn no_faces() {
        let expected = "meshes/x.obj: the file has no faces (expected at least one `f` line)";
        assert_eq!(message(SQUARE), expected);
        assert_eq!(message("# only a comment\n"), expected);
        assert_eq!(message(&format!("{SQUARE}l 1 2 3 4\n")), expected);
    }

    // Real meshes (README table in ../shared/meshes).

    fn load_shared(name: &str) -> TriMesh {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/meshes")
            .join(name);
        load_obj(&path).unwrap()
    }

    #[test]
    fn spot_counts() {
        let mesh = load_shared("spot.obj");
        assert_eq!(mesh.positions.len(), 2_930);
        assert_eq!(mesh.triangles.len(), 5_856);
        assert_eq!(
            mesh.positions[0],
            Vec3::new(0.348_799, -0.334_989, -0.083_233_1)
        );
        assert_eq!(mesh.triangles[0], [738, 734, 735]);
    }

    #[test]
    fn suzanne_counts() {
        let mesh = load_shared("suzanne.obj");
        assert_eq!(mesh.positions.len(), 507);
        // 468 quads split into 2 triangles each plus 32 triangles: 468 * 2 + 32 = 968.
        assert_eq!(mesh.triangles.len(), 468 * 2 + 32);
        assert_eq!(&mesh.triangles[..2], &[[0, 2, 44], [0, 44, 46]]);
    }

    #[test]
    fn stanford_bunny_counts() {
        let mesh = load_shared("stanford-bunny.obj");
        assert_eq!(mesh.positions.len(), 35_947);
        assert_eq!(mesh.triangles.len(), 69_451);
        assert_eq!(mesh.triangles[0], [21_216, 21_215, 20_399]);
    }

    #[test]
    fn teapot_counts() {
        let mesh = load_shared("teapot.obj");
        assert_eq!(mesh.positions.len(), 3_644);
        assert_eq!(mesh.triangles.len(), 6_320);
        assert_eq!(mesh.positions[1], Vec3::new(-2.9916, 1.8, -0.081));
    }

    // No input makes the importer panic.

    fn obj_line() -> impl Strategy<Value = String> {
        let word = prop::sample::select(vec![
            "v", "f", "vt", "vn", "g", "o", "s", "l", "cstype", "curv", "lod", "usemtl", "#", "1",
            "-1", "0", "2/1", "1//1", "3/2/1", "/", "nan", "1e40", "0.5", "", "x",
        ]);
        prop::collection::vec(word, 0..7).prop_map(|words| words.join(" "))
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse_obj(&bytes, Path::new("fuzz.obj"));
        }

        #[test]
        fn obj_like_lines_give_valid_meshes_or_errors(lines in prop::collection::vec(obj_line(), 0..20)) {
            if let Ok(mesh) = parse(&lines.join("\n")) {
                prop_assert!(!mesh.triangles.is_empty());
                for triangle in &mesh.triangles {
                    for &index in triangle {
                        prop_assert!((index as usize) < mesh.positions.len());
                    }
                }
            }
        }
    }
}
