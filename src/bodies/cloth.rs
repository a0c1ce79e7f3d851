//! Cloth: from a rectangular grid or from any triangle mesh.

use super::tear::Tear;
use super::{Body, BodyKind, MAX_PARTICLES, VertexMap};
use crate::constraints::bending::dihedral_angle_and_gradient;
use crate::constraints::isometric::{isometric_curvature, isometric_weights};
use crate::constraints::{ConstraintSets, Stiffness};
use crate::handles::ColliderHandle;
use crate::math::{Quat, Real, Vec3};
use crate::mesh::prepare::prepare;
use crate::mesh::topology::{edges, triangle_pairs};
use crate::particles::ParticleSet;
use crate::shape_matching::ClusterMaterial;
use crate::solver::schedule::{
    batch_fill, order_for_batches, order_grid_edges, order_in_runs, order_mesh_in_runs,
};
use crate::validate::{self, BuildError, Checked};
use std::collections::HashMap;

/// Which bending constraint a cloth uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BendKind {
    /// The dihedral angle between triangles sharing an edge (Müller et al. 2007, appendix A).
    #[default]
    Dihedral,
    /// A distance constraint between the two vertices opposite a shared edge.
    CrossDistance,
    /// The quadratic bending energy of a cloth that is flat at rest (Bergou et al. 2006): a
    /// constraint linear in the hinge's positions, cheaper than the dihedral angle and the same
    /// for small folds (see [`isometric`](crate::constraints::isometric)).
    Isometric,
}

impl BendKind {
    /// The kind's name in scene files: `dihedral`, `cross-distance` or `isometric`.
    pub fn name(self) -> &'static str {
        match self {
            BendKind::Dihedral => "dihedral",
            BendKind::CrossDistance => "cross-distance",
            BendKind::Isometric => "isometric",
        }
    }

    /// Parses a scene-file name; the error (at key `kind`) lists the names.
    pub fn from_name(name: &str) -> Checked<Self> {
        named(
            &[
                BendKind::Dihedral,
                BendKind::CrossDistance,
                BendKind::Isometric,
            ],
            BendKind::name,
            name,
            "kind",
        )
    }
}

/// The one of `all` called `given` by `name`; the error at `key` lists the names.
fn named<T: Copy>(all: &[T], name: fn(T) -> &'static str, given: &str, key: &str) -> Checked<T> {
    all.iter()
        .copied()
        .find(|&t| name(t) == given)
        .ok_or_else(|| {
            let names: Vec<String> = all.iter().map(|&t| format!("\"{}\"", name(t))).collect();
            BuildError::new(
                key,
                format!("= \"{given}\": expected {}", names.join(" or ")),
            )
        })
}

/// The particles and triangles of a rectangular grid cloth of `nx × nz` particles.
///
/// Particle `(i, j)` has index `j·nx + i`; quad `(i, j)` becomes triangles `(a, b, c)` and
/// `(b, d, c)` with `a = (i, j)`, `b = (i+1, j)`, `c = (i, j+1)`, `d = (i+1, j+1)` (the
/// triangulation of the standard workload W: every diagonal runs from `b` to `c`). `i` runs
/// along +x; `j` along +z for a horizontal cloth and along −y for a vertical one. The grid is
/// centered on `center`.
pub fn grid(
    nx: u32,
    nz: u32,
    size: [Real; 2],
    center: Vec3,
    vertical: bool,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    grid_with(nx, nz, size, center, vertical, Diagonals::Uniform)
}

/// How a grid's cells are split into triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Diagonals {
    /// Like a checkerboard: quad `(i, j)` with `i + j` odd becomes `(a, b, d)` and `(a, d, c)`
    /// (see [`grid`]), so that the diagonals, and the shear and bending they carry, prefer
    /// neither direction (the default).
    #[default]
    Alternating,
    /// Every diagonal from `b` to `c`, as [`grid`]: the triangulation of workload W.
    Uniform,
}

impl Diagonals {
    /// The name in scene files: `alternating` or `uniform`.
    pub fn name(self) -> &'static str {
        match self {
            Diagonals::Alternating => "alternating",
            Diagonals::Uniform => "uniform",
        }
    }

    /// Parses a scene-file name; the error (at key `diagonals`) lists the names.
    pub fn from_name(name: &str) -> Checked<Self> {
        let all = [Diagonals::Alternating, Diagonals::Uniform];
        named(&all, Diagonals::name, name, "diagonals")
    }
}

/// [`grid`] with its cells split as `diagonals` says.
pub fn grid_with(
    nx: u32,
    nz: u32,
    size: [Real; 2],
    center: Vec3,
    vertical: bool,
    diagonals: Diagonals,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let along_j = if vertical { -Vec3::y() } else { Vec3::z() };
    let step = |n: u32, s: Real| if n > 1 { s / (n - 1) as Real } else { 0.0 };
    let (dx, dj) = (step(nx, size[0]), step(nz, size[1]));
    let corner = center - Vec3::x() * (size[0] / 2.0) - along_j * (size[1] / 2.0);
    let mut x = Vec::with_capacity((nx * nz) as usize);
    for j in 0..nz {
        for i in 0..nx {
            x.push(corner + Vec3::x() * (i as Real * dx) + along_j * (j as Real * dj));
        }
    }
    let mut tris = Vec::with_capacity(2 * ((nx - 1) * (nz - 1)) as usize);
    for j in 0..nz.saturating_sub(1) {
        for i in 0..nx.saturating_sub(1) {
            let (a, b, c, d) = (
                j * nx + i,
                j * nx + i + 1,
                (j + 1) * nx + i,
                (j + 1) * nx + i + 1,
            );
            if diagonals == Diagonals::Alternating && (i + j) % 2 == 1 {
                tris.push([a, b, d]);
                tris.push([a, d, c]);
            } else {
                tris.push([a, b, c]);
                tris.push([b, d, c]);
            }
        }
    }
    (x, tris)
}

/// True when particles `a` and `b` of a grid of `nx` columns (see [`grid`]) are a cell diagonal
/// (a shear edge) rather than a grid line (a stretch edge): they share neither a row nor a
/// column.
pub fn is_grid_diagonal(nx: u32, a: u32, b: u32) -> bool {
    a % nx != b % nx && a / nx != b / nx
}

/// Rotates `positions` by `rotation` about their bounding-box center and moves that center to
/// `center` (keeps it where it is when `None`).
pub fn place(positions: &mut [Vec3], rotation: Quat, center: Option<Vec3>) {
    let (lo, hi) = positions.iter().fold(
        (Vec3::repeat(Real::MAX), Vec3::repeat(Real::MIN)),
        |(lo, hi), p| (lo.inf(p), hi.sup(p)),
    );
    let mid = (lo + hi) / 2.0;
    let center = center.unwrap_or(mid);
    for p in positions {
        *p = center + rotation * (*p - mid);
    }
}

/// A cloth to add to a world ([`World::add_cloth`](crate::World::add_cloth)): any triangle
/// mesh, or a rectangular grid ([`ClothDesc::grid`]). The defaults are those of a scene's
/// `[[cloth]]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct ClothDesc {
    /// Unique name (default empty: `cloth<n>` for the n-th cloth of the world).
    pub name: String,
    /// Vertex positions, m: one particle each.
    pub positions: Vec<Vec3>,
    /// Triangles, as 0-based indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
    /// For a grid cloth, its columns `nx` (see [`grid`]): the cell diagonals take the `shear`
    /// stiffness. `None` for a mesh cloth, where every edge is a stretch edge.
    pub grid_columns: Option<u32>,
    /// Total mass, kg, spread equally over the particles.
    pub mass: Real,
    /// Pinned vertices (indices into `positions`; default none).
    pub pin: Vec<usize>,
    /// Stretch: every triangle edge, or a grid's lines (default rigid XPBD).
    pub stretch: Stiffness,
    /// Shear: a grid's cell diagonals (default rigid XPBD).
    pub shear: Stiffness,
    /// Bending on every pair of triangles sharing an edge, and its kind (default none).
    pub bend: Option<(Stiffness, BendKind)>,
    /// Collision distance, m (default 0.01).
    pub thickness: Real,
    /// Müller 2007 damping in [0, 1]: the fraction of non-rigid velocity removed per
    /// [`RATE_TIME`](crate::params::RATE_TIME) (default 0).
    pub damping: Real,
    /// Aerodynamic coefficient `½ ρ C_d`, kg/m³ (default 0: no air).
    pub drag: Real,
    /// Aerodynamic lift coefficient `½ ρ C_l`, kg/m³ (default 0: no lift): the flat-plate lift
    /// `½ρC_l · A · (u·n̂) (|u| n̂ − (u·n̂) û)` on each triangle in air moving at `u` relative to
    /// it (the stage of external forces, `src/stages/forces.rs`).
    pub lift: Real,
    /// Collide the cloth's particles with each other (default false).
    pub self_collision: bool,
    /// Make the whole cloth one shape-matching cluster with this material (default none).
    pub shape: Option<ClusterMaterial>,
    /// The collider that carries the pins (default none: they stay where they are): each pin
    /// then follows the point of the collider it was on when the cloth was added.
    pub pin_collider: Option<ColliderHandle>,
    /// Long-range attachments (default false): tether every free particle to its nearest pin at
    /// their geodesic distance along the mesh's edges (see
    /// [`tether`](crate::constraints::tether)).
    pub long_range: bool,
    /// Tearing (default none): an edge stretched past the strain limit splits the mesh (see
    /// [`tear`](super::tear)).
    pub tear: Option<Tear>,
    /// Strain limiting (default none): after the iterations of each substep, every stretch and
    /// shear edge longer than `1 + stretch_limit` times its rest length is brought back to that
    /// length (a fraction ≥ 0, e.g. 0.1 for 10%; see
    /// [`strain_limit`](crate::constraints::strain_limit)).
    pub stretch_limit: Option<Real>,
    /// Weld tolerance of a mesh cloth, m: vertices closer than this share a particle, which
    /// sews the seams of a garment exported panel by panel (default `None`:
    /// [`WELD`](crate::mesh::prepare::WELD) times the mesh's median edge; 0: none). The mesh's
    /// sliver triangles are collapsed and its particles numbered for locality whatever the
    /// tolerance (see [`prepare`]); positions, pins and exports keep the mesh's vertices. A grid
    /// cloth and a tearing cloth keep their vertices as they are.
    pub weld: Option<Real>,
}

/// Which way a grid cloth lies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Orientation {
    /// In the XZ plane (the default).
    #[default]
    Horizontal,
    /// In the XY plane, rows running down.
    Vertical,
}

impl ClothDesc {
    /// A cloth made of `triangles` over `positions`, of `mass` kg, with the defaults.
    pub fn mesh(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>, mass: Real) -> Self {
        ClothDesc {
            name: String::new(),
            positions,
            triangles,
            grid_columns: None,
            mass,
            pin: Vec::new(),
            stretch: Stiffness::default(),
            shear: Stiffness::default(),
            bend: None,
            thickness: 0.01,
            damping: 0.0,
            drag: 0.0,
            lift: 0.0,
            self_collision: false,
            shape: None,
            pin_collider: None,
            long_range: false,
            tear: None,
            stretch_limit: None,
            weld: None,
        }
    }

    /// A grid cloth of `resolution = [nx, nz]` particles (each ≥ 2) spanning `size` m, centred
    /// on `center`, lying as `orientation` says (see [`grid`] for the particle order), its
    /// diagonals alternating ([`Diagonals::Alternating`]), of `mass` kg, with the defaults.
    pub fn grid(
        resolution: [u32; 2],
        size: [Real; 2],
        center: Vec3,
        orientation: Orientation,
        mass: Real,
    ) -> Checked<Self> {
        Self::grid_with(
            resolution,
            size,
            center,
            orientation,
            Diagonals::Alternating,
            mass,
        )
    }

    /// [`ClothDesc::grid`] with its cells split as `diagonals` says.
    pub fn grid_with(
        resolution: [u32; 2],
        size: [Real; 2],
        center: Vec3,
        orientation: Orientation,
        diagonals: Diagonals,
        mass: Real,
    ) -> Checked<Self> {
        for n in resolution {
            validate::at_least(n, 2, "resolution")?;
        }
        validate::check(
            u64::from(resolution[0]) * u64::from(resolution[1]) <= MAX_PARTICLES,
            "resolution",
            || format!("= {resolution:?}: expected at most {MAX_PARTICLES} particles"),
        )?;
        for s in size {
            validate::positive(s, "size", "a size in m")?;
        }
        validate::finite(&center, "center")?;
        let vertical = orientation == Orientation::Vertical;
        let [nx, nz] = resolution;
        let (x, tris) = grid_with(nx, nz, size, center, vertical, diagonals);
        Ok(ClothDesc {
            grid_columns: Some(nx),
            ..ClothDesc::mesh(x, tris, mass)
        })
    }

    /// The cloth of the standard workload W (the README's benchmarks): an `n × n` grid spanning
    /// [0, 1] m × [0, 1] m in the XZ plane at y = 0 (the j = 0 edge on z = 0), triangulated as
    /// [`grid`] (every diagonal the same way), pinned at particles 0 and `n − 1`, 1 kg in all
    /// (1/n² kg on every particle), stretch and shear on every triangle edge and cross-distance
    /// bending, all with `stiffness`; named `cloth`.
    ///
    /// # Panics
    /// If `n` < 2.
    pub fn workload_w(n: u32, stiffness: Stiffness) -> Self {
        let center = Vec3::new(0.5, 0.0, 0.5);
        let horizontal = Orientation::Horizontal;
        let grid = ClothDesc::grid_with(
            [n, n],
            [1.0, 1.0],
            center,
            horizontal,
            Diagonals::Uniform,
            1.0,
        );
        ClothDesc {
            name: "cloth".into(),
            pin: vec![0, n as usize - 1],
            stretch: stiffness,
            shear: stiffness,
            bend: Some((stiffness, BendKind::CrossDistance)),
            ..grid.expect("W has at least 2 x 2 particles")
        }
    }

    /// The index of grid particle `(i, j)` (see [`grid`]), for [`ClothDesc::pin`]: `j·nx + i`.
    pub fn grid_index(nx: u32, i: u32, j: u32) -> usize {
        (j * nx + i) as usize
    }

    /// Checks every field (keys as in a scene's `[[cloth]]` table).
    pub fn validate(&self) -> Checked {
        let n = self.positions.len();
        validate::check(n > 0 && !self.triangles.is_empty(), "mesh", || {
            format!(
                "has {n} vertices and {} triangles: expected a mesh with triangles",
                self.triangles.len()
            )
        })?;
        for (k, p) in self.positions.iter().enumerate() {
            validate::finite(p, &format!("positions[{k}]"))?;
        }
        for (k, t) in self.triangles.iter().enumerate() {
            validate::check(
                t.iter().all(|&v| (v as usize) < n),
                &format!("triangles[{k}]"),
                || format!("= {t:?}: expected vertex indices in 0..{n}"),
            )?;
        }
        for (k, &v) in self.pin.iter().enumerate() {
            validate::vertex(v, n, &format!("pin[{k}]"))?;
        }
        validate::positive(self.mass, "mass", "a mass in kg")?;
        validate::stiffness(&self.stretch, "stretch")?;
        validate::stiffness(&self.shear, "shear")?;
        if let Some(limit) = self.stretch_limit {
            validate::non_negative(limit, "stretch_limit")?;
        }
        if let Some(weld) = self.weld {
            validate::non_negative(weld, "weld")?;
        }
        match &self.bend {
            Some((bend, BendKind::CrossDistance)) => validate::stiffness_not_elastic(
                bend,
                "bend",
                "needs `kind = \"dihedral\"` (a cross-distance spring has no bending modulus)",
            )?,
            Some((bend, BendKind::Dihedral)) => validate::stiffness(bend, "bend")?,
            Some((bend, BendKind::Isometric)) => {
                validate::stiffness(bend, "bend")?;
                self.check_flat()?;
            }
            None => {}
        }
        validate::non_negative(self.drag, "drag")?;
        validate::non_negative(self.lift, "lift")?;
        if let Some(tear) = &self.tear {
            tear.validate(self.shape.is_some())?;
        }
        super::validate_common(self.thickness, self.damping, self.shape.as_ref())
    }

    /// Checks that every hinge is flat at rest, as isometric bending needs: its measure of the
    /// fold (`2 sin(θ/2)`, see [`isometric_curvature`]) at most [`FLAT_AT_REST`].
    fn check_flat(&self) -> Checked {
        let x = &self.positions;
        for q in triangle_pairs(&self.triangles) {
            let corners = q.map(|i| x[i as usize]);
            let Some(k) = isometric_weights(corners) else {
                continue;
            };
            let fold = isometric_curvature(corners, k);
            validate::check(fold <= FLAT_AT_REST, "bend", || {
                let degrees = (2.0 * (fold / 2.0).min(1.0).asin()).to_degrees();
                format!(
                    "kind = \"isometric\" needs a cloth that is flat at rest, but the triangles on \
                     the edge between vertices {} and {} (counted from 0) meet at {degrees:.2}° \
                     from flat: use kind = \"dihedral\" for a curved cloth",
                    q[0], q[1]
                )
            })?;
        }
        Ok(())
    }

    /// Adds the cloth's particles (sharing its mass equally, pins with zero inverse mass), a
    /// stretch constraint on every triangle edge (shear on a grid's diagonals) and bending on
    /// every pair of triangles sharing an edge (the description is valid); returns its body,
    /// called `name`, the world's body number `body_index`.
    pub(crate) fn build(
        &self,
        name: String,
        ps: &mut ParticleSet,
        cs: &mut ConstraintSets,
        body_index: u32,
    ) -> Body {
        let start = ps.len();
        let prepared = self
            .is_prepared()
            .then(|| prepare(&self.positions, &self.triangles, self.weld, true));
        let (rest, triangles) = match &prepared {
            Some(p) => (&p.rest, &p.triangles),
            None => (&self.positions, &self.triangles),
        };
        let particle = |v: usize| {
            prepared
                .as_ref()
                .map_or(v, |p| p.particle_of_vertex[v] as usize)
        };
        let mut pins: Vec<usize> = self.pin.iter().map(|&v| particle(v)).collect();
        pins.sort_unstable();
        pins.dedup();
        let inv_mass = rest.len() as Real / self.mass;
        for (i, &x) in rest.iter().enumerate() {
            let w = if pins.binary_search(&i).is_ok() {
                0.0
            } else {
                inv_mass
            };
            ps.push(x, w, self.thickness, body_index);
        }
        self.add_constraints(start, rest, triangles, None, &pins, cs);
        Body {
            name,
            kind: BodyKind::Cloth,
            particles: start..ps.len(),
            triangles: self.triangles.clone(),
            damping: self.damping,
            drag: self.drag,
            lift: self.lift,
            skin: None,
            tets: Vec::new(),
            rest_volume: 0.0,
            inv_mass,
            vertex_map: prepared.map(|p| VertexMap {
                particle: p.particle_of_vertex,
                triangles: p.triangles,
                welded: p.welded,
                collapsed: p.collapsed,
            }),
        }
    }
}

impl ClothDesc {
    /// Whether the cloth's particles are made from its vertices by
    /// [`prepare`](crate::mesh::prepare::prepare): a mesh cloth's are, unless it tears. A grid
    /// is in order already and has no seams; a tearing cloth grows from the file's vertices as
    /// they are.
    fn is_prepared(&self) -> bool {
        self.grid_columns.is_none() && self.tear.is_none()
    }
}

/// Below this share of full lanes in its file order (see [`batch_fill`]), a mesh cloth's edges
/// are ordered for batches. The tablecloth's disc fills 13% of its lanes in file order (ordered,
/// its stretch stage is 9x faster), workload W written as a mesh row by row 93% (ordered, its
/// stretch at 2 s grew from 27% to 72% at the worst edge).
const MIN_MESH_FILL: f64 = 0.5;

impl ClothDesc {
    /// Adds the constraints of the cloth's particles `start..` with rest positions `rest`
    /// (local indices) over `triangles`: a stretch constraint on every edge (shear on a grid's
    /// diagonals), the tethers and the bending of every pair of triangles sharing an edge.
    /// `origin` gives each vertex the vertex of the description it was split from by tearing
    /// (`None`: the description's own vertices), which tells a grid's diagonals; the tethers
    /// hold to the particles `pins` (local indices).
    pub(crate) fn add_constraints(
        &self,
        start: usize,
        rest: &[Vec3],
        triangles: &[[u32; 3]],
        origin: Option<&[u32]>,
        pins: &[usize],
        cs: &mut ConstraintSets,
    ) {
        let at = |local: u32| start as u32 + local;
        let original = |v: u32| origin.map_or(v, |o| o[v as usize]);
        let is_shear = |a, b| {
            self.grid_columns
                .is_some_and(|nx| is_grid_diagonal(nx, original(a), original(b)))
        };
        let elastic = |s: &Stiffness| matches!(s, Stiffness::Elastic { .. });
        let membrane = if elastic(&self.stretch) || elastic(&self.shear) {
            membrane_weights(rest, triangles)
        } else {
            HashMap::new()
        };
        // The edges of a grid whose cells are split alike go row by row in runs (see
        // `order_grid_edges`), whose sweep carries the pins' load through the cloth in one
        // Gauss-Seidel pass; a grid with alternating diagonals keeps its build order (cell by
        // cell, also row by row). A mesh's particles are numbered for locality, and its edges
        // go in runs along that numbering's rows of about √n particles. A tearing cloth keeps
        // its file order when it fills the batches (a grid written row by row); a file order
        // that chains neighbours leaves the batches nearly empty, and is ordered for full
        // batches instead.
        let row = (rest.len() as f64).sqrt().ceil() as u32;
        let in_order = |ids: Vec<[u32; 2]>| match self.grid_columns {
            None if self.is_prepared() => order_mesh_in_runs(ids, row),
            None if batch_fill(&ids) < MIN_MESH_FILL => order_for_batches(ids),
            _ => ids,
        };
        let all = edges(triangles);
        // Both ways of splitting a cell occur: the diagonals alternate.
        let steps = |step: fn(u32) -> u32| {
            self.grid_columns.is_some_and(|nx| {
                all.iter()
                    .any(|&[a, b]| is_shear(a, b) && original(a).abs_diff(original(b)) == step(nx))
            })
        };
        let alternating = steps(|nx| nx - 1) && steps(|nx| nx + 1);
        // The columns of a grid whose constraints go in rows of runs: one whose cells are split
        // alike. With alternating diagonals the rows made the default scene (2 iterations)
        // stretch more (median max / mean strain over 300 frames 14.3% / 0.274% against 10.6% /
        // 0.226%), and its hinges make no runs.
        let in_rows = self.grid_columns.filter(|_| !alternating);
        let edges = match in_rows {
            Some(columns) => order_grid_edges(all, columns),
            None => in_order(all),
        };
        for &[a, b] in &edges {
            let d = (rest[a as usize] - rest[b as usize]).norm();
            let stiffness = if is_shear(a, b) {
                self.shear
            } else {
                self.stretch
            };
            let g = membrane.get(&[a, b]).copied().unwrap_or(Real::INFINITY);
            let mat = cs.stretch.materials.add_element(stiffness, g);
            cs.stretch.push(at(a), at(b), d, mat);
            if let Some(limit) = self.stretch_limit {
                cs.stretch_limit.push(at(a), at(b), d, limit);
            }
        }
        if self.long_range {
            cs.tether.add_body(start, rest, &edges, pins);
            cs.tether.check();
        }
        if let Some((stiffness, kind)) = self.bend {
            let pairs = triangle_pairs(triangles);
            match kind {
                BendKind::Dihedral | BendKind::Isometric => {
                    for q in order_for_batches(pairs) {
                        let corners = q.map(|i| rest[i as usize]);
                        let lattice = match (alternating, is_shear(q[0], q[1])) {
                            (false, _) => 1.0,
                            (true, false) => ALTERNATING_GRID_HINGES[0],
                            (true, true) => ALTERNATING_GRID_HINGES[1],
                        };
                        // The two kinds measure a small fold alike, so their hinges weigh alike.
                        let weight = lattice * hinge_weight(corners);
                        match kind {
                            BendKind::Isometric => {
                                // A degenerate hinge has no weights and is left out.
                                if let Some(k) = isometric_weights(corners) {
                                    let mat = cs.isometric.materials.add_element(stiffness, weight);
                                    cs.isometric.push_weighted(q.map(at), 0.0, k, mat);
                                }
                            }
                            _ => {
                                let mat = cs.dihedral.materials.add_element(stiffness, weight);
                                let theta =
                                    dihedral_angle_and_gradient(corners).map_or(0.0, |(t, _)| t);
                                cs.dihedral.push_constraint(q.map(at), theta, mat);
                            }
                        }
                    }
                }
                BendKind::CrossDistance => {
                    let mat = cs.bend_distance.materials.add(stiffness);
                    let ends: Vec<_> = pairs.iter().map(|&[_, _, a, b]| [a, b]).collect();
                    // The hinges of a grid whose cells are split alike go row by row in runs,
                    // whose batches read particles side by side. With alternating diagonals the
                    // hinges of a row take turns between two steps and make no runs: in rows,
                    // twist's and cloth_on_mesh's bending stages took 0.49 ms against 0.43 to
                    // 0.45 in build order.
                    let ends = match in_rows {
                        Some(columns) => order_in_runs(ends, columns),
                        None => in_order(ends),
                    };
                    for [a, b] in ends {
                        let d = (rest[a as usize] - rest[b as usize]).norm();
                        cs.bend_distance.push(at(a), at(b), d, mat);
                    }
                }
            }
        }
    }
}

/// The membrane stiffness of each edge spring per unit `E t` (keyed as [`edges`] gives them):
/// `Σ_T 3 A_T / (|e₁|² + |e₂|² + |e₃|²)` over the triangles `T` that hold the edge, each of area
/// `A_T` and edges `e₁, e₂, e₃`. The three edges of a triangle share its springs equally; this
/// makes a lattice of equilateral triangles, or of right isosceles triangles paired in
/// alternating squares, an isotropic membrane with Young's modulus × thickness `E t` and Poisson
/// ratio 1/3 (derived in `docs/elastic.md`). An edge of zero-area triangles only has no entry
/// (it is rigid).
fn membrane_weights(x: &[Vec3], triangles: &[[u32; 3]]) -> HashMap<[u32; 2], Real> {
    let mut g = HashMap::new();
    for t in triangles {
        let p = t.map(|i| x[i as usize]);
        let sides = [p[1] - p[0], p[2] - p[1], p[0] - p[2]];
        let area = sides[0].cross(&sides[1]).norm() / 2.0;
        let sum_sq: Real = sides.iter().map(|e| e.norm_squared()).sum();
        if area > 0.0 {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *g.entry([a.min(b), a.max(b)]).or_insert(0.0) += 3.0 * area / sum_sq;
            }
        }
    }
    g
}

/// The largest fold at rest that [`BendKind::Isometric`] takes as flat: `2 sin(θ/2)` of 0.06°
/// (vertices rounded to a few digits in a file stay well within it).
const FLAT_AT_REST: Real = 1e-3;

/// The factors of [`hinge_weight`] on a grid whose diagonals alternate: 4/3 on the grid's lines
/// and 2/3 on its cell diagonals, so that every hinge of a square cell gets `4/3 D`. Relaxed over
/// the nodes' two-by-two sublattice, the hinges then make the isotropic plate of bending
/// stiffness `D` and Poisson ratio −1/3; with `|e|² / (A₁ + A₂)` alone they make a plate of
/// `5/6 D` along the grid's lines and `4/3 D` along its diagonals (derived in `docs/elastic.md`).
const ALTERNATING_GRID_HINGES: [Real; 2] = [4.0 / 3.0, 2.0 / 3.0];

/// The bending stiffness of the hinge `[e₀, e₁, a, b]` (triangles `(e₀, e₁, a)` and
/// `(e₁, e₀, b)`) per unit plate bending stiffness `D`: `|e|² / (A₁ + A₂)`, so that the hinge's
/// energy `½ D |e|² θ² / (A₁ + A₂)` sums to `∫ ½ D κ² dA` over a grid or an equilateral mesh
/// whose nodes are placed on a cylinder (the discrete-shells hinge weight of Grinspun et al.
/// 2003, derived in `docs/elastic.md`; see [`ALTERNATING_GRID_HINGES`] for relaxed nodes). Infinite (a rigid hinge) when the hinge is degenerate at rest.
fn hinge_weight(q: [Vec3; 4]) -> Real {
    let [e0, e1, a, b] = q;
    let e = e1 - e0;
    let area = (e.cross(&(a - e0)).norm() + e.cross(&(b - e0)).norm()) / 2.0;
    if area > 0.0 && e.norm_squared() > 0.0 {
        e.norm_squared() / area
    } else {
        Real::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_spans_its_size_around_its_center() {
        let (x, tris) = grid(3, 5, [2.0, 1.0], Vec3::new(0.0, 1.0, 0.0), false);
        assert_eq!(x.len(), 15);
        assert_eq!(tris.len(), 2 * 2 * 4);
        assert!((x[0] - Vec3::new(-1.0, 1.0, -0.5)).norm() < 1e-6);
        assert!((x[14] - Vec3::new(1.0, 1.0, 0.5)).norm() < 1e-6);
        let (v, _) = grid(3, 5, [2.0, 1.0], Vec3::zeros(), true);
        assert!(
            (v[14] - Vec3::new(1.0, -0.5, 0.0)).norm() < 1e-6,
            "j runs down a vertical cloth"
        );
    }

    #[test]
    fn hinges_ordered_for_batches_fill_them_and_keep_the_blocks() {
        use crate::solver::schedule::{LANES, schedule};
        for diagonals in [Diagonals::Uniform, Diagonals::Alternating] {
            let (_, tris) = grid_with(64, 64, [1.0, 1.0], Vec3::zeros(), false, diagonals);
            let built = triangle_pairs(&tris);
            let ordered = order_for_batches(built.clone());
            let (before, after) = (schedule(&built), schedule(&ordered));
            // The same pairs in every block, so the same block colors.
            assert_eq!(before.blocks.bounds, after.blocks.bounds);
            for w in after.blocks.bounds.windows(2) {
                let sorted = |q: &[[u32; 4]]| {
                    let mut q = q.to_vec();
                    q.sort_unstable();
                    q
                };
                assert_eq!(sorted(&built[w[0]..w[1]]), sorted(&ordered[w[0]..w[1]]));
            }
            assert_eq!(before.blocks.colors, after.blocks.colors);
            let batches = |b: &crate::solver::Blocks| b.batches.len() - 1;
            let fewest: usize = (after.blocks.bounds.windows(2))
                .map(|w| (w[1] - w[0]).div_ceil(LANES))
                .sum();
            // In build order chains of neighbouring hinges leave many batches partial.
            assert!(batches(&before.blocks) > fewest * 5 / 4, "{diagonals:?}");
            assert!(
                batches(&after.blocks) <= fewest + fewest / 100,
                "{diagonals:?}: {} batches, at least {fewest}",
                batches(&after.blocks)
            );
        }
    }

    /// A `n × n` grid cloth of 0.5 m × 0.5 m with elastic stretch, shear and bending, built.
    fn elastic_grid(n: u32, modulus: Real) -> (ParticleSet, ConstraintSets) {
        let elastic = Stiffness::Elastic {
            stiffness: modulus,
            damping: 0.0,
        };
        let desc = ClothDesc {
            stretch: elastic,
            shear: elastic,
            bend: Some((elastic, BendKind::Dihedral)),
            ..ClothDesc::grid(
                [n, n],
                [0.5, 0.5],
                Vec3::zeros(),
                Orientation::Horizontal,
                1.0,
            )
            .unwrap()
        };
        desc.validate().unwrap();
        let (mut ps, mut cs) = (ParticleSet::default(), ConstraintSets::default());
        desc.build("c".into(), &mut ps, &mut cs, 0);
        (ps, cs)
    }

    fn compliance(s: Stiffness) -> f64 {
        match s {
            Stiffness::Xpbd { compliance, .. } => f64::from(compliance),
            other => panic!("elastic materials are stored as XPBD, not {other:?}"),
        }
    }

    /// The energy per unit area, J/m², of the hinges of an `n × n` elastic grid (linearized at
    /// rest: heights only) under the heights `½ (k₀ x² + k₁ z²) + k₂ x z` plus the offset of each
    /// node's place in the grid's 2 × 2 sublattice that minimizes it: the plate the lattice
    /// makes when its nodes may relax. Counted over the hinges whose midpoints lie in the middle
    /// half of the grid (an even number of cells each way, so every sublattice pattern is whole).
    fn relaxed_energy_density(ps: &ParticleSet, cs: &ConstraintSets, n: u32, k: [f64; 3]) -> f64 {
        let set = &cs.dihedral;
        let height = |p: Vec3| {
            let (x, z) = (f64::from(p.x), f64::from(p.z));
            0.5 * (k[0] * x * x + k[1] * z * z) + k[2] * x * z
        };
        let sublattice = |i: u32| ((i % n) % 2 + 2 * ((i / n) % 2)) as usize;
        let (lo, hi) = ((n - 1) / 4, 3 * (n - 1) / 4);
        let mut normal = nalgebra::Matrix3::<f64>::zeros();
        let mut rhs = nalgebra::Vector3::<f64>::zeros();
        let mut terms = Vec::new();
        for c in 0..set.len() {
            let ids = set.ids()[c];
            // Twice the midpoint's cell coordinates.
            let (col, row) = (ids[0] % n + ids[1] % n, ids[0] / n + ids[1] / n);
            if !((2 * lo..2 * hi).contains(&col) && (2 * lo..2 * hi).contains(&row)) {
                continue;
            }
            let x = ids.map(|i| ps.x[i as usize]);
            let (_, grad) = crate::constraints::bending::dihedral_angle_and_gradient(x).unwrap();
            let stiffness = 1.0 / compliance(set.materials.stiffness[set.mat[c] as usize]);
            // θ = a + b·φ, φ the offsets of sublattice places 1, 2 and 3 (place 0 stays).
            let mut b = nalgebra::Vector3::<f64>::zeros();
            let mut theta = 0.0;
            for ((&i, p), g) in ids.iter().zip(x).zip(grad) {
                theta += f64::from(g.y) * height(p);
                if sublattice(i) > 0 {
                    b[sublattice(i) - 1] += f64::from(g.y);
                }
            }
            normal += b * b.transpose() * stiffness;
            rhs -= b * theta * stiffness;
            terms.push((theta, b, stiffness));
        }
        let phi = normal.lu().solve(&rhs).unwrap();
        let energy: f64 = terms
            .iter()
            .map(|(theta, b, stiffness)| 0.5 * stiffness * (theta + b.dot(&phi)).powi(2))
            .sum();
        let h = 0.5 / f64::from(n - 1);
        energy / (f64::from(hi - lo) * h).powi(2)
    }

    #[test]
    fn elastic_hinges_of_an_alternating_grid_make_an_isotropic_plate_at_any_resolution() {
        // The plate of bending stiffness D and Poisson ratio ν = −1/3 (docs/elastic.md):
        // ½ D [(κ_xx + κ_zz)² − 2 (1 − ν)(κ_xx κ_zz − κ_xz²)] per unit area. The lattice is
        // exactly that plate (up to f32 gradients), so the tolerance is 1e-4.
        let (d, nu) = (1.2, -1.0 / 3.0);
        let plate = |[kxx, kzz, kxz]: [f64; 3]| {
            0.5 * d * ((kxx + kzz).powi(2) - 2.0 * (1.0 - nu) * (kxx * kzz - kxz * kxz))
        };
        let roll = |degrees: f64| {
            let (s, c) = degrees.to_radians().sin_cos();
            [c * c, s * s, c * s]
        };
        let shapes = [
            ("roll 0°", roll(0.0)),
            ("roll 30°", roll(30.0)),
            ("roll 45°", roll(45.0)),
            ("roll 90°", roll(90.0)),
            ("roll 135°", roll(135.0)),
            ("saddle", [1.0, -1.0, 0.0]),
            ("twist", [0.0, 0.0, 1.0]),
        ];
        for n in [9, 17, 33] {
            let (ps, cs) = elastic_grid(n, d as Real);
            for (name, k) in shapes {
                let energy = relaxed_energy_density(&ps, &cs, n, k);
                assert!(
                    (energy / plate(k) - 1.0).abs() < 1e-4,
                    "{n} x {n}, {name}: {energy} J/m², the plate's {} J/m²",
                    plate(k)
                );
            }
        }
    }

    #[test]
    fn elastic_edges_make_an_isotropic_membrane_of_poisson_ratio_one_third() {
        let et = 500.0;
        let (ps, cs) = elastic_grid(17, et);
        let area = 0.25;
        let (e, nu) = (f64::from(et), 1.0 / 3.0);
        // Uniform strains (ε_xx, ε_zz, γ_xz): the springs' energy against the membrane's
        // ½ E t / (1 − ν²) (ε_xx² + ε_zz² + 2ν ε_xx ε_zz) + ½ G t γ², G t = E t / (2 (1 + ν)).
        for (exx, ezz, gamma) in [
            (1e-3, 0.0, 0.0),
            (0.0, 1e-3, 0.0),
            (0.0, 0.0, 1e-3),
            (1e-3, -5e-4, 4e-4),
        ] {
            let strained = |p: &Vec3| {
                let (x, z) = (f64::from(p.x), f64::from(p.z));
                [
                    x * (1.0 + exx) + 0.5 * gamma * z,
                    z * (1.0 + ezz) + 0.5 * gamma * x,
                ]
            };
            let set = &cs.stretch;
            let energy: f64 = (0..set.len())
                .map(|c| {
                    let [a, b] = set.ids()[c].map(|i| strained(&ps.x[i as usize]));
                    let len = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
                    let alpha = compliance(set.materials.stiffness[set.mat[c] as usize]);
                    0.5 * (len - f64::from(set.rest[c])).powi(2) / alpha
                })
                .sum();
            let w = 0.5 * e / (1.0 - nu * nu) * (exx * exx + ezz * ezz + 2.0 * nu * exx * ezz)
                + 0.5 * e / (2.0 * (1.0 + nu)) * gamma * gamma;
            let analytic = w * area;
            assert!(
                (energy / analytic - 1.0).abs() < 5e-3,
                "strain ({exx}, {ezz}, {gamma}): spring energy {energy} J, membrane {analytic} J"
            );
        }
    }

    #[test]
    fn grid_diagonals_alternate_but_workload_w_keeps_its_own() {
        let (_, tris) = grid_with(
            3,
            3,
            [1.0, 1.0],
            Vec3::zeros(),
            false,
            Diagonals::Alternating,
        );
        let diagonals: Vec<[u32; 2]> = edges(&tris)
            .into_iter()
            .filter(|&[a, b]| is_grid_diagonal(3, a, b))
            .collect();
        // Cells (0, 0) and (1, 1) run b–c, cells (1, 0) and (0, 1) run a–d.
        assert_eq!(diagonals.len(), 4);
        for d in [[1, 3], [5, 7], [1, 5], [3, 7]] {
            assert!(diagonals.contains(&d), "{d:?} in {diagonals:?}");
        }
        let w = ClothDesc::workload_w(3, Stiffness::default());
        assert_eq!(w.triangles, grid(3, 3, [1.0, 1.0], Vec3::zeros(), false).1);
        assert!(is_grid_diagonal(2, 1, 2) && !is_grid_diagonal(2, 0, 1));
    }

    #[test]
    fn cloth_mass_is_spread_equally_and_pins_have_zero_inverse_mass() {
        let (x, tris) = grid(4, 4, [1.0, 1.0], Vec3::zeros(), false);
        let (mut ps, mut cs) = (ParticleSet::default(), ConstraintSets::default());
        let desc = ClothDesc {
            pin: vec![0, 3],
            bend: Some((Stiffness::default(), BendKind::CrossDistance)),
            ..ClothDesc::mesh(x, tris, 1.6)
        };
        desc.validate().unwrap();
        let body = desc.build("c".into(), &mut ps, &mut cs, 0);
        assert_eq!(body.particles, 0..16);
        for v in 0..16 {
            let w = ps.inv_mass[body.particle_of_vertex(v)];
            match v {
                0 | 3 => assert_eq!(w, 0.0, "vertex {v} is pinned"),
                _ => assert!((w - 10.0).abs() < 1e-5, "16 particles share 1.6 kg"),
            }
        }
        // 3x3 quads: 24 horizontal/vertical edges + 9 diagonals; 9 + 12 interior edges pair triangles.
        assert_eq!(cs.stretch.len(), 33);
        assert_eq!(cs.bend_distance.len(), 21);
    }
}
