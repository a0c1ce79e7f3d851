//! Mesh repair before building a soft body: weld coincident vertices, drop degenerate and
//! duplicate faces, drop unused vertices.
//!
//! Cloth keeps the file's vertices as they are (see [`super::obj`]); a volumetric soft body
//! needs one vertex per surface point, so that faces share edges and closed surfaces can be
//! recognised ([`super::topology::is_closed`]).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;

use super::{Real, TriMesh, Vec3};

/// What [`clean`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CleanReport {
    /// Vertices merged into an earlier vertex closer than the weld tolerance.
    pub welded: usize,
    /// Vertices no remaining face uses.
    pub unused_removed: usize,
    /// Faces with a repeated vertex (after welding) or zero area.
    pub degenerate_removed: usize,
    /// Faces repeating an earlier face with the same winding, plus both faces of each pair
    /// with opposite winding (a sheet of zero thickness).
    pub duplicate_faces_removed: usize,
}

impl fmt::Display for CleanReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "welded {} vertices, removed {} unused vertices, {} degenerate faces, {} duplicate faces",
            self.welded, self.unused_removed, self.degenerate_removed, self.duplicate_faces_removed
        )
    }
}

/// A weld tolerance relative to the mesh size: 1e-6 times the bounding-box diagonal
/// (0 for a mesh without vertices).
pub fn default_weld_tolerance(mesh: &TriMesh) -> Real {
    let Some(&first) = mesh.positions.first() else {
        return 0.0;
    };
    let (min, max) = mesh
        .positions
        .iter()
        .fold((first, first), |(min, max), p| (min.inf(p), max.sup(p)));
    1e-6 * (max - min).norm()
}

/// Returns a cleaned copy of `mesh` and what was changed:
/// 1. welds every vertex closer than `weld_tolerance` to an earlier kept vertex into the
///    earliest such vertex (no welding when the tolerance is not a positive finite number);
/// 2. drops faces that have a repeated vertex after welding or exactly zero area;
/// 3. drops faces repeating an earlier face with the same winding, and drops both faces of a
///    pair with the same vertices and opposite winding (they enclose nothing and make their
///    edges non-manifold);
/// 4. drops vertices no face uses and renumbers the rest, keeping their order.
///
/// Panics if a triangle index is out of range for `mesh.positions`.
pub fn clean(mesh: &TriMesh, weld_tolerance: Real) -> (TriMesh, CleanReport) {
    let representative = weld(&mesh.positions, weld_tolerance);
    let mut report = CleanReport {
        welded: representative
            .iter()
            .enumerate()
            .filter(|&(i, &kept)| kept as usize != i)
            .count(),
        ..CleanReport::default()
    };

    // Slot in `kept` of the face kept for each vertex set; `None` in `kept` once cancelled.
    let mut slot_of_vertex_set = HashMap::with_capacity(mesh.triangles.len());
    let mut kept: Vec<Option<[u32; 3]>> = Vec::with_capacity(mesh.triangles.len());
    for triangle in &mesh.triangles {
        let triangle = triangle.map(|i| representative[i as usize]);
        if is_degenerate(&mesh.positions, triangle) {
            report.degenerate_removed += 1;
            continue;
        }
        let mut vertex_set = triangle;
        vertex_set.sort_unstable();
        match slot_of_vertex_set.entry(vertex_set) {
            Entry::Vacant(entry) => {
                entry.insert(kept.len());
                kept.push(Some(triangle));
            }
            Entry::Occupied(entry) => {
                report.duplicate_faces_removed += 1;
                let earlier = kept[*entry.get()].expect("vertex sets map to kept faces");
                if !same_winding(earlier, triangle) {
                    kept[entry.remove()] = None;
                    report.duplicate_faces_removed += 1;
                }
            }
        }
    }
    let mut triangles: Vec<[u32; 3]> = kept.into_iter().flatten().collect();

    let mut new_index = vec![None; mesh.positions.len()];
    for &i in triangles.iter().flatten() {
        new_index[i as usize] = Some(0);
    }
    let mut positions = Vec::new();
    for (slot, &p) in new_index.iter_mut().zip(&mesh.positions) {
        if slot.is_some() {
            *slot = Some(positions.len() as u32);
            positions.push(p);
        }
    }
    report.unused_removed = mesh.positions.len() - report.welded - positions.len();
    for triangle in &mut triangles {
        *triangle = triangle.map(|i| new_index[i as usize].expect("used vertices are numbered"));
    }
    (
        TriMesh {
            positions,
            triangles,
        },
        report,
    )
}

/// For each vertex, the index of the vertex it is welded into (itself if it is kept).
///
/// Kept vertices are stored in a hash grid with cells as wide as the tolerance, so any vertex
/// closer than the tolerance lies in one of the 27 cells around a query point. Vertices are
/// visited in order and compared with kept vertices only, which makes the result independent
/// of hashing and keeps the first vertex of each cluster.
pub(crate) fn weld(positions: &[Vec3], tolerance: Real) -> Vec<u32> {
    let mut representative: Vec<u32> = (0..positions.len() as u32).collect();
    if !tolerance.is_finite() || tolerance <= 0.0 {
        return representative;
    }
    let cell_of = |p: &Vec3| p.map(|c| (c / tolerance).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for (i, p) in positions.iter().enumerate() {
        let cell = cell_of(p);
        let mut nearest_kept: Option<u32> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let neighbour = [
                        cell.x.saturating_add(dx),
                        cell.y.saturating_add(dy),
                        cell.z.saturating_add(dz),
                    ];
                    let close = grid.get(&neighbour).into_iter().flatten().copied();
                    for j in close.filter(|&j| (positions[j as usize] - p).norm() < tolerance) {
                        nearest_kept = Some(nearest_kept.map_or(j, |k| k.min(j)));
                    }
                }
            }
        }
        match nearest_kept {
            Some(j) => representative[i] = j,
            None => grid
                .entry([cell.x, cell.y, cell.z])
                .or_default()
                .push(i as u32),
        }
    }
    representative
}

/// Whether two triangles with the same three distinct vertices list them in the same cyclic order.
fn same_winding(a: [u32; 3], b: [u32; 3]) -> bool {
    b == a || b == [a[1], a[2], a[0]] || b == [a[2], a[0], a[1]]
}

/// Whether a triangle repeats a vertex or has exactly zero area.
fn is_degenerate(positions: &[Vec3], [a, b, c]: [u32; 3]) -> bool {
    if a == b || b == c || c == a {
        return true;
    }
    let p = |i: u32| positions[i as usize];
    (p(b) - p(a)).cross(&(p(c) - p(a))) == Vec3::zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::obj::load_obj;
    use crate::mesh::topology::{boundary_edge_count, is_closed};
    use std::path::Path;

    fn mesh(positions: &[[Real; 3]], triangles: &[[u32; 3]]) -> TriMesh {
        TriMesh {
            positions: positions.iter().map(|&p| Vec3::from(p)).collect(),
            triangles: triangles.to_vec(),
        }
    }

    /// A unit cube made of 6 separate quads (4 vertices each, split into 2 triangles), with
    /// outward winding.
    fn cube_of_separate_quads() -> TriMesh {
        let faces: [[[Real; 3]; 4]; 6] = [
            [[0., 0., 0.], [0., 1., 0.], [1., 1., 0.], [1., 0., 0.]],
            [[0., 0., 1.], [1., 0., 1.], [1., 1., 1.], [0., 1., 1.]],
            [[0., 0., 0.], [1., 0., 0.], [1., 0., 1.], [0., 0., 1.]],
            [[0., 1., 0.], [0., 1., 1.], [1., 1., 1.], [1., 1., 0.]],
            [[0., 0., 0.], [0., 0., 1.], [0., 1., 1.], [0., 1., 0.]],
            [[1., 0., 0.], [1., 1., 0.], [1., 1., 1.], [1., 0., 1.]],
        ];
        let positions: Vec<[Real; 3]> = faces.iter().flatten().copied().collect();
        let triangles: Vec<[u32; 3]> = (0..6u32)
            .flat_map(|f| [[4 * f, 4 * f + 1, 4 * f + 2], [4 * f, 4 * f + 2, 4 * f + 3]])
            .collect();
        mesh(&positions, &triangles)
    }

    #[test]
    fn cube_of_separate_quads_welds_into_a_closed_cube() {
        let cube = cube_of_separate_quads();
        assert_eq!(cube.positions.len(), 24);
        assert_eq!(boundary_edge_count(&cube.triangles), 24);

        let (cleaned, report) = clean(&cube, default_weld_tolerance(&cube));
        assert_eq!(
            report,
            CleanReport {
                welded: 16,
                ..CleanReport::default()
            }
        );
        assert_eq!(cleaned.positions.len(), 8);
        assert_eq!(cleaned.triangles.len(), 12);
        assert!(is_closed(&cleaned.triangles));
        // The first quad's corners come first, in file order.
        assert_eq!(cleaned.positions[1], Vec3::new(0.0, 1.0, 0.0));
        assert_eq!(cleaned.triangles[..2], [[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn weld_keeps_the_first_vertex_and_does_not_chain() {
        // 1 is within the tolerance of 0; 2 is within it of 1 but not of 0, and 1 is not kept.
        let positions = [[0.0, 0.0, 0.0], [0.6, 0.0, 0.0], [1.2, 0.0, 0.0]];
        assert_eq!(weld(&positions.map(Vec3::from), 1.0), vec![0, 0, 2]);
    }

    #[test]
    fn weld_picks_the_earliest_kept_vertex_across_cells() {
        // Cells are 1 wide: 0, 1 and 2 sit in cells 0, 2 and 1. Vertex 2 is within the
        // tolerance of both others and nearer to 1, but 0 comes first in the file.
        let positions = [[0.95, 0.0, 0.0], [2.0, 0.0, 0.0], [1.5, 0.0, 0.0]];
        assert_eq!(weld(&positions.map(Vec3::from), 1.0), vec![0, 1, 0]);
    }

    #[test]
    fn weld_needs_a_distance_below_the_tolerance() {
        let positions = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.5], [0.0, 0.0, 0.5]];
        let positions = positions.map(Vec3::from);
        assert_eq!(weld(&positions, 0.5), vec![0, 1, 1]);
        assert_eq!(weld(&positions, 0.0), vec![0, 1, 2]);
        assert_eq!(weld(&positions, Real::NAN), vec![0, 1, 2]);
    }

    #[test]
    fn degenerate_faces_are_removed() {
        let input = mesh(
            &[
                [0., 0., 0.],
                [1., 0., 0.],
                [0., 1., 0.],
                [2., 0., 0.],
                [1e-9, 0., 0.],
            ],
            &[
                [0, 1, 2],
                [0, 0, 2], // repeated index
                [0, 1, 3], // collinear: zero area
                [0, 4, 2], // vertex 4 welds into 0
            ],
        );
        let (cleaned, report) = clean(&input, 1e-6);
        assert_eq!(
            report,
            CleanReport {
                welded: 1,
                unused_removed: 1,
                degenerate_removed: 3,
                duplicate_faces_removed: 0,
            }
        );
        assert_eq!(cleaned.triangles, vec![[0, 1, 2]]);
    }

    #[test]
    fn unused_vertices_are_removed_keeping_order() {
        let input = mesh(
            &[
                [9., 9., 9.],
                [0., 0., 0.],
                [8., 8., 8.],
                [1., 0., 0.],
                [0., 1., 0.],
                [7., 7., 7.],
            ],
            &[[4, 1, 3]],
        );
        let (cleaned, report) = clean(&input, 1e-6);
        assert_eq!(report.unused_removed, 3);
        assert_eq!(
            cleaned.positions,
            vec![
                Vec3::new(0., 0., 0.),
                Vec3::new(1., 0., 0.),
                Vec3::new(0., 1., 0.)
            ]
        );
        assert_eq!(cleaned.triangles, vec![[2, 0, 1]]);
    }

    const TETRAHEDRON_CORNERS: [[Real; 3]; 4] =
        [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];

    #[test]
    fn repeated_faces_with_the_same_winding_keep_the_first() {
        let input = mesh(
            &TETRAHEDRON_CORNERS,
            &[[0, 1, 2], [1, 2, 0], [0, 1, 3], [2, 0, 1], [0, 1, 2]],
        );
        let (cleaned, report) = clean(&input, 1e-6);
        assert_eq!(report.duplicate_faces_removed, 3);
        assert_eq!(cleaned.triangles, vec![[0, 1, 2], [0, 1, 3]]);
    }

    #[test]
    fn faces_with_opposite_winding_cancel() {
        let input = mesh(
            &TETRAHEDRON_CORNERS,
            &[[0, 1, 2], [0, 1, 3], [1, 0, 2], [0, 2, 1], [3, 1, 0]],
        );
        let (cleaned, report) = clean(&input, 1e-6);
        // [1, 0, 2] cancels [0, 1, 2]; [0, 2, 1] then has no earlier face; [3, 1, 0] cancels
        // [0, 1, 3], which leaves vertex 3 unused.
        assert_eq!(
            report,
            CleanReport {
                welded: 0,
                unused_removed: 1,
                degenerate_removed: 0,
                duplicate_faces_removed: 4,
            }
        );
        assert_eq!(cleaned.triangles, vec![[0, 2, 1]]);
    }

    #[test]
    fn default_tolerance_is_a_millionth_of_the_diagonal() {
        let input = mesh(&[[1., 2., 3.], [4., 6., 15.], [2., 3., 4.]], &[]);
        // Diagonal of the box from (1, 2, 3) to (4, 6, 15): sqrt(9 + 16 + 144) = 13.
        assert!((default_weld_tolerance(&input) - 13e-6).abs() < 1e-12);
        assert_eq!(default_weld_tolerance(&TriMesh::default()), 0.0);
    }

    #[test]
    fn report_prints_one_line_of_counts() {
        let report = CleanReport {
            welded: 1,
            unused_removed: 2,
            degenerate_removed: 3,
            duplicate_faces_removed: 4,
        };
        assert_eq!(
            report.to_string(),
            "welded 1 vertices, removed 2 unused vertices, 3 degenerate faces, 4 duplicate faces"
        );
    }

    /// Cleans a mesh from `../shared/meshes`, prints what changed (see with `--nocapture`)
    /// and returns the report with the cleaned mesh.
    fn clean_shared(name: &str) -> (TriMesh, CleanReport) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/meshes")
            .join(name);
        let mesh = load_obj(&path).unwrap();
        let (cleaned, report) = clean(&mesh, default_weld_tolerance(&mesh));
        println!(
            "{name}: {report}; {} -> {} vertices, {} -> {} triangles, {} -> {} boundary edges",
            mesh.positions.len(),
            cleaned.positions.len(),
            mesh.triangles.len(),
            cleaned.triangles.len(),
            boundary_edge_count(&mesh.triangles),
            boundary_edge_count(&cleaned.triangles),
        );
        (cleaned, report)
    }

    #[test]
    fn spot_is_already_clean_and_closed() {
        let (cleaned, report) = clean_shared("spot.obj");
        assert_eq!(report, CleanReport::default());
        assert_eq!(cleaned.positions.len(), 2_930);
        assert!(is_closed(&cleaned.triangles));
    }

    #[test]
    fn suzanne_welds_two_vertices_and_cancels_a_folded_face_pair() {
        // 0-based vertices 14 and 113, and 15 and 114, have identical positions. The 143rd and
        // 144th faces share vertices 70, 137 and 138 on the mirror plane, and fan triangulation
        // gives each a triangle on those three, with opposite winding: removing both leaves
        // vertex 137 unused and the 42 boundary edges unchanged.
        let (cleaned, report) = clean_shared("suzanne.obj");
        assert_eq!(
            report,
            CleanReport {
                welded: 2,
                unused_removed: 1,
                degenerate_removed: 0,
                duplicate_faces_removed: 2,
            }
        );
        assert_eq!(cleaned.positions.len(), 504);
        assert_eq!(cleaned.triangles.len(), 966);
        assert_eq!(boundary_edge_count(&cleaned.triangles), 42);
    }

    #[test]
    fn stanford_bunny_drops_its_unused_vertices() {
        let (cleaned, report) = clean_shared("stanford-bunny.obj");
        assert_eq!(
            report,
            CleanReport {
                unused_removed: 1_113,
                ..CleanReport::default()
            }
        );
        assert_eq!(cleaned.positions.len(), 35_947 - 1_113);
        assert_eq!(cleaned.triangles.len(), 69_451);
        assert_eq!(boundary_edge_count(&cleaned.triangles), 223);
    }

    #[test]
    fn teapot_welds_its_patch_seams() {
        // The teapot's patches repeat the vertices along their seams: 403 exact duplicates.
        let (cleaned, report) = clean_shared("teapot.obj");
        assert_eq!(
            report,
            CleanReport {
                welded: 403,
                ..CleanReport::default()
            }
        );
        assert_eq!(cleaned.positions.len(), 3_644 - 403);
        assert_eq!(boundary_edge_count(&cleaned.triangles), 160);
        assert!(!is_closed(&cleaned.triangles));
    }
}
