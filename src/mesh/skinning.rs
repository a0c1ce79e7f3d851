//! Embedding a surface in tetrahedra: each surface vertex follows the four particles of the tet
//! that contains it, with fixed barycentric weights (linear-blend skinning in a tet mesh).

use crate::math::{Real, Vec3};

/// Surface vertices embedded in tets: vertex `v` is `Σₖ weights[v][k] · x[tets[v][k]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skin {
    /// The four particles (local to the body) of the tet holding each surface vertex.
    pub tets: Vec<[u32; 4]>,
    /// Barycentric coordinates of each vertex in its tet: non-negative, summing to 1.
    pub weights: Vec<[Real; 4]>,
}

impl Skin {
    /// The surface vertices for the body's particle positions `x` (body-local), m.
    pub fn skin(&self, x: &[Vec3]) -> Vec<Vec3> {
        let mut out = Vec::new();
        self.skin_into(x, &mut out);
        out
    }

    /// [`Skin::skin`] into `out` (cleared first; no allocation once it is large enough).
    pub fn skin_into(&self, x: &[Vec3], out: &mut Vec<Vec3>) {
        out.clear();
        out.extend(
            self.tets
                .iter()
                .zip(&self.weights)
                .map(|(t, w)| (0..4).map(|k| x[t[k] as usize] * w[k]).sum::<Vec3>()),
        );
    }
}

/// Barycentric coordinates of `q` in the tet `t` (`q = Σ bₖ tₖ`, `Σ bₖ = 1`), or `None` for a
/// flat tet.
pub fn barycentric(t: [Vec3; 4], q: Vec3) -> Option<[Real; 4]> {
    let m = crate::math::Mat3::from_columns(&[t[1] - t[0], t[2] - t[0], t[3] - t[0]]);
    let b = m.try_inverse()? * (q - t[0]);
    Some([1.0 - b.x - b.y - b.z, b.x, b.y, b.z])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skinning_reproduces_the_embedded_point_and_follows_the_tet() {
        let t = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()];
        let q = Vec3::new(0.2, 0.3, 0.1);
        let b = barycentric(t, q).unwrap();
        assert!(b.iter().all(|&w| w >= 0.0) && (b.iter().sum::<Real>() - 1.0).abs() < 1e-6);
        let skin = Skin {
            tets: vec![[0, 1, 2, 3]],
            weights: vec![b],
        };
        assert!((skin.skin(&t)[0] - q).norm() < 1e-6);
        let moved = t.map(|p| p * 2.0 + Vec3::y());
        assert!((skin.skin(&moved)[0] - (q * 2.0 + Vec3::y())).norm() < 1e-6);
    }
}
